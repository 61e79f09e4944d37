/* An op library that registers nothing: loading it succeeds with an empty OpList. */
int tfc_test_empty_lib_marker = 1;
