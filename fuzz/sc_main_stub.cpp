// libsystemc.so refers to sc_main, which a program of its own defines; the fuzz targets (main is
// libFuzzer's) and make_seeds never start SystemC.
extern "C" int sc_main(int, char**) { return 0; }
