/*
 * Starts a command in a new pseudo-terminal without fork() (Linux; part of the pty_reader module,
 * loaded by ../pty-spawn.ts).
 *
 * Why: node-pty starts a terminal's command with forkpty(), a fork() of the whole process on the
 * main thread. fork() copies the process's page tables, so its cost grows with the process: on the
 * project's 2-core test machine 5 ms at 50 MB of RSS, 18 ms at 250 MB, 25 to 34 ms at 550 MB, each
 * time a command starts, with the event loop held all along; and every page the process writes
 * afterwards faults once (copy-on-write). posix_spawn() in glibc uses clone(CLONE_VM | CLONE_VFORK):
 * no page table is copied, whatever the process's size.
 *
 * Contract: spawn(file, args, env, cwd, cols, rows, onExit) returns { pid, fd, ptsName }.
 * - file: an absolute path (no PATH search); args: the whole argv (args[0] included); env: the
 *   whole environment as "NAME=value" strings; cwd: the folder it starts in.
 * - The command is the leader of a new session whose controlling terminal is the new pty (stdin,
 *   stdout and stderr), with the terminal modes node-pty sets (see set_modes) and a window of
 *   cols x rows; all signals at their default action and none blocked (Node ignores SIGPIPE).
 * - fd is the pty's master side (close-on-exec, non-blocking), owned by the caller: it must close it.
 * - onExit(exitCode, signal) is called once on the main thread after the command has ended and
 *   been reaped (exitCode 0 when a signal ended it; signal 0 when it exited).
 * - Throws an Error naming the system's reason (a missing program or folder, no pty left) and
 *   then leaves nothing open and no process behind; a string holding a NUL is refused.
 * - Where posix_spawn cannot set a session and a folder (not glibc 2.29 or later), spawn is not
 *   exported: the caller uses node-pty.
 */
#include "spawn-common.h"

#ifdef LATHE_CAN_SPAWN
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* The modes node-pty gives a new terminal (its pty.cc), so commands see the same terminal. */
static void set_modes(struct termios *t) {
  memset(t, 0, sizeof *t);
  t->c_iflag = ICRNL | IXON | IXANY | IMAXBEL | BRKINT | IUTF8;
  t->c_oflag = OPOST | ONLCR;
  t->c_cflag = CREAD | CS8 | HUPCL;
  t->c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL;
  t->c_cc[VEOF] = 4;
  t->c_cc[VEOL] = (cc_t)-1;
  t->c_cc[VEOL2] = (cc_t)-1;
  t->c_cc[VERASE] = 0x7f;
  t->c_cc[VWERASE] = 23;
  t->c_cc[VKILL] = 21;
  t->c_cc[VREPRINT] = 18;
  t->c_cc[VINTR] = 3;
  t->c_cc[VQUIT] = 0x1c;
  t->c_cc[VSUSP] = 26;
  t->c_cc[VSTART] = 17;
  t->c_cc[VSTOP] = 19;
  t->c_cc[VLNEXT] = 22;
  t->c_cc[VDISCARD] = 15;
  t->c_cc[VMIN] = 1;
  t->c_cc[VTIME] = 0;
  cfsetispeed(t, B38400);
  cfsetospeed(t, B38400);
}

static napi_value spawn(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t cols = 0, rows = 0;
  napi_valuetype callback_type;
  if (argc < 7 || napi_get_value_int32(env, argv[4], &cols) != napi_ok || napi_get_value_int32(env, argv[5], &rows) != napi_ok || cols <= 0 || rows <= 0 ||
      cols > 0xffff || rows > 0xffff || napi_typeof(env, argv[6], &callback_type) != napi_ok || callback_type != napi_function) {
    napi_throw_type_error(env, NULL, "spawn(file, args, env, cwd, cols, rows, onExit): wrong arguments");
    return NULL;
  }
  char *file = NULL, *cwd = NULL, **args = NULL, **environment = NULL;
  napi_value result = NULL;
  int master = -1;
  if ((file = c_string(env, argv[0], "spawn: file must be a string without NUL")) == NULL) goto done;
  if (file[0] != '/') {
    napi_throw_type_error(env, NULL, "spawn: file must be an absolute path");
    goto done;
  }
  if ((args = c_strings(env, argv[1], "spawn: args must be strings without NUL")) == NULL) goto done;
  if ((environment = c_strings(env, argv[2], "spawn: env must be strings without NUL")) == NULL) goto done;
  if ((cwd = c_string(env, argv[3], "spawn: cwd must be a string without NUL")) == NULL) goto done;

  char name[128];
  master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (master < 0) {
    throw_errno(env, "could not open a pseudo-terminal", errno);
    goto done;
  }
  if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, sizeof name) != 0) {
    throw_errno(env, "could not prepare the pseudo-terminal", errno);
    goto done;
  }
  /* On the master, these set the terminal's (the slave's) modes and size. */
  struct termios modes;
  set_modes(&modes);
  struct winsize size = {(unsigned short)rows, (unsigned short)cols, 0, 0};
  if (tcsetattr(master, TCSANOW, &modes) != 0 || ioctl(master, TIOCSWINSZ, &size) != 0) {
    throw_errno(env, "could not set the terminal's modes", errno);
    goto done;
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
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  /* After setsid (glibc runs the actions after it): opening the terminal makes it the session's. */
  posix_spawn_file_actions_addchdir_np(&actions, cwd);
  posix_spawn_file_actions_addopen(&actions, 0, name, O_RDWR, 0);
  posix_spawn_file_actions_adddup2(&actions, 0, 1);
  posix_spawn_file_actions_adddup2(&actions, 0, 2);
  pid_t pid = 0;
  int error = posix_spawn(&pid, file, &actions, &attributes, args, environment);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    char what[1200];
    snprintf(what, sizeof what, "could not start %.500s in %.500s", file, cwd);
    throw_errno(env, what, error);
    goto done;
  }

  if (watch_child(env, pid, argv[6], "lathe-pty-wait") != 0) goto done;
  napi_value pid_value, fd_value, name_value;
  napi_create_object(env, &result);
  napi_create_int32(env, pid, &pid_value);
  napi_create_int32(env, master, &fd_value);
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &name_value);
  napi_set_named_property(env, result, "pid", pid_value);
  napi_set_named_property(env, result, "fd", fd_value);
  napi_set_named_property(env, result, "ptsName", name_value);
  master = -1; /* the caller's now */

done:
  if (master >= 0) close(master);
  free(file);
  free(cwd);
  free_strings(args);
  free_strings(environment);
  return result;
}

void register_spawn(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "spawn", NAPI_AUTO_LENGTH, spawn, NULL, &fn);
  napi_set_named_property(env, exports, "spawn", fn);
}
#else
void register_spawn(napi_env env, napi_value exports) {
  (void)env;
  (void)exports;
}
#endif
