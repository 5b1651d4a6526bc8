/* Which symbols the shared library exports. The library is built with -fvisibility=hidden:
 * only declarations between CP_API_BEGIN and CP_API_END (the public headers) are visible to
 * programs that link libclparity.so; everything else stays internal to the library. */
#ifndef CLPARITY_EXPORT_H
#define CLPARITY_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define CP_API_BEGIN _Pragma("GCC visibility push(default)")
#define CP_API_END _Pragma("GCC visibility pop")
#else
#define CP_API_BEGIN
#define CP_API_END
#endif

#endif
