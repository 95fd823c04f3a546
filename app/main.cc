// Entry point of the `fusebox` executable.
#include "app/cli.h"

int main(int argc, char** argv) { return fusebox::cli::RunCli(argc, argv); }
