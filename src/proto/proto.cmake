# Generates C from src/proto/*.proto with protoc-c into the build tree.
file(GLOB TFC_PROTO_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/proto/tensorflow/*.proto)
set(TFC_PROTO_INCLUDE_DIR ${CMAKE_BINARY_DIR}/proto)
set(TFC_PROTO_SOURCES "")
set(TFC_PROTO_OUTPUTS "")
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
  list(APPEND TFC_PROTO_OUTPUTS ${out_c} ${out_h})
endforeach()
# Hand-written sources include the generated headers, and Makefile generators do not order
# their compilation after the custom commands of the same target; a separate target that
# tfc_obj depends on generates everything first. tfc_obj is defined after this file is
# included, hence the deferred call.
add_custom_target(tfc_proto_gen DEPENDS ${TFC_PROTO_OUTPUTS})
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
  cmake_language(DEFER CALL add_dependencies tfc_obj tfc_proto_gen)
endif()
set_source_files_properties(${TFC_PROTO_SOURCES} PROPERTIES COMPILE_OPTIONS "-Wno-unused-parameter")
