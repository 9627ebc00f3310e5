/*
 * Starts a program with pipes for its stdin, stdout and stderr, without fork() (Linux; part of the
 * pty_reader module, loaded by ../child-spawn.ts, which gives the callers child_process's shape).
 *
 * Why: libuv starts child_process's children with fork() on Linux, which copies the page tables
 * of the whole process on the main thread (9 ms at 52 MB of RSS, 18 at 253 MB, 34 at 554 MB on
 * the project's 2-core machine), and every page the process writes afterwards faults once
 * (copy-on-write). posix_spawn() in glibc uses clone(CLONE_VM | CLONE_VFORK): nothing is copied.
 * (pty-spawn.c does the same for the bash tool's terminals.)
 *
 * Contract: spawnPipes(file, args, env, cwd, stdio, onExit) returns { pid, stdin, stdout, stderr }.
 * - file: an absolute path (the caller searches PATH); args: the whole argv (args[0] included);
 *   env: the whole environment as "NAME=value" strings; cwd: the folder it starts in.
 * - stdio: three booleans, for the child's 0, 1 and 2: true, a new pipe whose other end is
 *   returned (close-on-exec and non-blocking, owned by the caller, who must close it); false,
 *   /dev/null (that entry is -1).
 * - The child has no other descriptor of ours (every one of Node's is close-on-exec, and so are
 *   the pipes until they are moved to 0, 1, 2), every signal at its default action (Node ignores
 *   SIGPIPE: a `git log | head` must end as it does in a shell) and none blocked; it stays in
 *   our process group and session, as child_process's do.
 * - onExit(exitCode, signal) is called once on the main thread after the child has ended and been
 *   reaped (exitCode 0 when a signal ended it; signal 0 when it exited); until then its pid is not
 *   reused, so the caller may signal it (spawn-common.c).
 * - Throws an Error whose `code` is the errno's name (ENOENT: no such program or folder; EACCES,
 *   ENOTDIR, E2BIG, EMFILE...) and whose message says what failed; nothing is then left open and
 *   no process behind. A wrong argument (a string holding a NUL, a relative file) is a TypeError.
 * - Where posix_spawn cannot set a folder (not glibc 2.29 or later), spawnPipes is not exported.
 */
#include "spawn-common.h"

#ifdef LATHE_CAN_SPAWN
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Moves fd to a number above 2 (close-on-exec): a pipe end that took 0, 1 or 2 (a parent started
 * with one closed) would be dup2'ed onto itself, which keeps its close-on-exec flag. */
static int above_stdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  int saved = errno;
  close(fd);
  errno = saved;
  return moved;
}

static void close_all(int *fds, int count) {
  for (int i = 0; i < count; i++) {
    if (fds[i] >= 0) close(fds[i]);
    fds[i] = -1;
  }
}

static napi_value spawn_pipes(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  napi_valuetype callback_type;
  bool piped[3] = {false, false, false};
  bool is_array = false;
  int bad = argc < 6 || napi_is_array(env, argv[4], &is_array) != napi_ok || !is_array || napi_typeof(env, argv[5], &callback_type) != napi_ok ||
            callback_type != napi_function;
  for (uint32_t i = 0; i < 3 && !bad; i++) {
    napi_value item;
    bad = napi_get_element(env, argv[4], i, &item) != napi_ok || napi_get_value_bool(env, item, &piped[i]) != napi_ok;
  }
  if (bad) {
    napi_throw_type_error(env, NULL, "spawnPipes(file, args, env, cwd, stdio, onExit): wrong arguments");
    return NULL;
  }
  char *file = NULL, *cwd = NULL, **args = NULL, **environment = NULL;
  napi_value result = NULL;
  /* ours[i]: the parent's end for the child's descriptor i; theirs[i]: the child's end. */
  int ours[3] = {-1, -1, -1}, theirs[3] = {-1, -1, -1};
  if ((file = c_string(env, argv[0], "spawnPipes: file must be a string without NUL")) == NULL) goto done;
  if (file[0] != '/') {
    napi_throw_type_error(env, NULL, "spawnPipes: file must be an absolute path");
    goto done;
  }
  if ((args = c_strings(env, argv[1], "spawnPipes: args must be strings without NUL")) == NULL) goto done;
  if ((environment = c_strings(env, argv[2], "spawnPipes: env must be strings without NUL")) == NULL) goto done;
  if ((cwd = c_string(env, argv[3], "spawnPipes: cwd must be a string without NUL")) == NULL) goto done;

  char what[1200];
  snprintf(what, sizeof what, "could not start %.500s in %.500s", file, cwd);
  for (int i = 0; i < 3; i++) {
    if (!piped[i]) continue;
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) {
      throw_errno(env, what, errno); /* EMFILE, ENFILE */
      goto done;
    }
    /* The child reads its stdin (0) and writes the others. */
    ours[i] = above_stdio(i == 0 ? ends[1] : ends[0]);
    theirs[i] = above_stdio(i == 0 ? ends[0] : ends[1]);
    if (ours[i] < 0 || theirs[i] < 0) {
      throw_errno(env, what, errno);
      goto done;
    }
    /* Ours only: each end of a pipe has its own status flags; the child's stays blocking. */
    fcntl(ours[i], F_SETFL, fcntl(ours[i], F_GETFL) | O_NONBLOCK);
  }

  posix_spawnattr_t attributes;
  posix_spawn_file_actions_t actions;
  sigset_t none, every;
  sigemptyset(&none);
  fill_all_signals(&every);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &every);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawn_file_actions_addchdir_np(&actions, cwd);
  for (int i = 0; i < 3; i++) {
    /* dup2 clears close-on-exec on the copy; the originals (above 2) close at exec. */
    if (piped[i]) posix_spawn_file_actions_adddup2(&actions, theirs[i], i);
    else posix_spawn_file_actions_addopen(&actions, i, "/dev/null", O_RDWR, 0);
  }
  pid_t pid = 0;
  int error = posix_spawn(&pid, file, &actions, &attributes, args, environment);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close_all(theirs, 3); /* the child has its copies (or there is no child) */
  if (error != 0) {
    throw_errno(env, what, error);
    goto done;
  }
  if (watch_child(env, pid, argv[5], "lathe-pipe-wait") != 0) goto done;

  static const char *const names[3] = {"stdin", "stdout", "stderr"};
  napi_value value;
  napi_create_object(env, &result);
  napi_create_int32(env, pid, &value);
  napi_set_named_property(env, result, "pid", value);
  for (int i = 0; i < 3; i++) {
    napi_create_int32(env, ours[i], &value);
    napi_set_named_property(env, result, names[i], value);
    ours[i] = -1; /* the caller's now */
  }

done:
  close_all(ours, 3);
  close_all(theirs, 3);
  free(file);
  free(cwd);
  free_strings(args);
  free_strings(environment);
  return result;
}

void register_spawn_pipes(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "spawnPipes", NAPI_AUTO_LENGTH, spawn_pipes, NULL, &fn);
  napi_set_named_property(env, exports, "spawnPipes", fn);
}
#else
void register_spawn_pipes(napi_env env, napi_value exports) {
  (void)env;
  (void)exports;
}
#endif
