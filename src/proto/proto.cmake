# Generates C from src/proto/*.proto with protoc-c into the build tree.
file(GLOB TFC_PROTO_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/proto/tensorflow/*.proto)
set(TFC_PROTO_INCLUDE_DIR ${CMAKE_BINARY_DIR}/proto)
set(TFC_PROTO_SOURCES "")
foreach(proto ${TFC_PROTO_FILES})
  get_filename_component(base ${proto} NAME_WE)
  set(out_c ${TFC_PROTO_INCLUDE_DIR}/tensorflow/${base}.pb-c.c)
  set(out_h ${TFC_PROTO_INCLUDE_DIR}/tensorflow/${base}.pb-c.h)
  add_custom_command(
    OUTPUT ${out_c} ${out_h}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${TFC_PROTO_INCLUDE_DIR}
    COMMAND ${PROTOC_C} --proto_path=${CMAKE_SOURCE_DIR}/src/proto --c_out=${TFC_PROTO_INCLUDE_DIR}
            ${proto}
    DEPENDS ${proto}
    COMMENT "protoc-c ${base}.proto")
  list(APPEND TFC_PROTO_SOURCES ${out_c})
endforeach()
set_source_files_properties(${TFC_PROTO_SOURCES} PROPERTIES COMPILE_OPTIONS "-Wno-unused-parameter")
