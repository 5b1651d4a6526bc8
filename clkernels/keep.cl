/* CP_KEEP(name): whether a program keeps kernel `name`, for `#if CP_KEEP(name)` around each
 * __kernel (runtime/engine/program.c expands the #include; cp_program_keep writes the options).
 * Without -DCP_KERNELS every kernel is kept; with it, only those named by -DCP_K_<name>. A
 * driver may compile every kernel of a program, whether or not the host makes it: PoCL does when
 * the program's binary is asked for (the program cache), and those compiles were most of a
 * first build (docs/PERFORMANCE.md, "First builds on PoCL"). `name` may be a macro (cr.cl's
 * CR_GEMM_NAME): it is expanded first. Standard C99 preprocessing only (the test of a
 * definition by a second argument that appears only where CP_K_<name> expands to 1). */
#ifndef CP_KEEP
#ifdef CP_KERNELS
#define CP_KEEP_CAT_(a, b) a##b
#define CP_KEEP_CAT(a, b) CP_KEEP_CAT_(a, b)
#define CP_KEEP_2ND_(a, b, ...) b
#define CP_KEEP_2ND(...) CP_KEEP_2ND_(__VA_ARGS__, 0, 0)
#define CP_KEEP_PROBE_1 ~, 1
#define CP_KEEP(name) CP_KEEP_2ND(CP_KEEP_CAT(CP_KEEP_PROBE_, CP_KEEP_CAT(CP_K_, name)))
#else
#define CP_KEEP(name) 1
#endif
#endif
