/* compiler.h: small compiler helpers shared by every module (header only). */
#ifndef OA_COMPILER_H
#define OA_COMPILER_H

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
/* For the few helpers of the per-event path the compiler would call. */
#define OA_INLINE inline __attribute__((always_inline))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define USE_RET __attribute__((warn_unused_result))
#define OA_EXPORT __attribute__((visibility("default")))
#define OA_UNUSED __attribute__((unused))
#define OA_TLS __attribute__((tls_model("initial-exec"))) __thread

#endif
