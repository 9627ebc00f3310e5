/*
 * What pty-spawn.c and pipe-spawn.c share (spawn-common.c): arguments from JavaScript as C
 * strings, errors that name the system's reason, and the thread that waits for a child.
 * Linux with glibc 2.29 or later only (posix_spawn_file_actions_addchdir_np); elsewhere the
 * spawn functions are not exported and the callers fall back to node-pty / child_process.
 */
#ifndef LATHE_SPAWN_COMMON_H
#define LATHE_SPAWN_COMMON_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <node_api.h>

#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
#define LATHE_CAN_SPAWN 1
#include <signal.h>
#include <sys/types.h>

/* A JavaScript string as a new C string (NULL, with an exception pending, when it is not one or holds a NUL). */
char *c_string(napi_env env, napi_value value, const char *what);
/* A JavaScript array of strings as a NULL-terminated C array (NULL, with an exception pending, on error). */
char **c_strings(napi_env env, napi_value array, const char *what);
void free_strings(char **list);
/* Throws an Error "<what>: <strerror>" whose `code` is the errno's name (as Node's errors); returns NULL. */
napi_value throw_errno(napi_env env, const char *what, int error);
/*
 * Every signal, for posix_spawnattr_setsigdefault: sigfillset's set and glibc's two internal
 * signals (32 and 33), which sigfillset leaves out and posix_spawn would then set to SIG_IGN in
 * the child (kept ignored past exec: child_process's children have them at their default).
 */
void fill_all_signals(sigset_t *set);
/*
 * Watches `pid` on a thread named `thread_name` (at most 15 characters): `on_exit(exitCode,
 * signal)` is called once on the main thread after the child has ended (exitCode 0 when a signal
 * ended it; signal 0 when it exited). The child is reaped on the main thread just before that call, so until JavaScript hears
 * of the end its pid stays taken (a zombie): a kill() before then cannot reach another process.
 * Returns 0, or -1 with an exception pending and the child killed and reaped.
 */
int watch_child(napi_env env, pid_t pid, napi_value on_exit, const char *thread_name);
#endif
#endif
