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
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <node_api.h>

#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/*
 * Shared by the thread that waits for the command and the threadsafe function (until its
 * finalizer): freed when both are done. The thread calls the function only under the mutex and
 * only while js_gone is 0; the finalizer (which runs before Node frees the function, also when
 * the environment is torn down while the command runs: a worker's exit) sets it under the mutex.
 */
typedef struct waiter {
  pid_t pid;
  int status;
  napi_threadsafe_function on_exit;
  pthread_mutex_t mutex;
  int js_gone;
  int owners;
} waiter_t;

static void waiter_release(waiter_t *w) {
  pthread_mutex_lock(&w->mutex);
  int last = --w->owners == 0;
  pthread_mutex_unlock(&w->mutex);
  if (last) {
    pthread_mutex_destroy(&w->mutex);
    free(w);
  }
}

static void finalize_on_exit(napi_env env, void *data, void *hint) {
  waiter_t *w = data;
  (void)env;
  (void)hint;
  pthread_mutex_lock(&w->mutex);
  w->js_gone = 1;
  pthread_mutex_unlock(&w->mutex);
  waiter_release(w);
}

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

static napi_value fail(napi_env env, const char *what, int error) {
  char message[1400];
  snprintf(message, sizeof message, "%s: %s", what, strerror(error));
  napi_throw_error(env, NULL, message);
  return NULL;
}

/* A JavaScript string as a new C string (NULL, with an exception pending, when it is not one or holds a NUL). */
static char *c_string(napi_env env, napi_value value, const char *what) {
  size_t length = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) {
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  char *text = malloc(length + 1);
  if (text == NULL) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  if (strlen(text) != length) {
    free(text);
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  return text;
}

static void free_strings(char **list) {
  if (list == NULL) return;
  for (char **p = list; *p != NULL; p++) free(*p);
  free(list);
}

/* A JavaScript array of strings as a NULL-terminated C array (NULL, with an exception pending, on error). */
static char **c_strings(napi_env env, napi_value array, const char *what) {
  uint32_t count = 0;
  bool is_array = false;
  if (napi_is_array(env, array, &is_array) != napi_ok || !is_array || napi_get_array_length(env, array, &count) != napi_ok) {
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  char **list = calloc((size_t)count + 1, sizeof *list);
  if (list == NULL) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    if (napi_get_element(env, array, i, &item) != napi_ok || (list[i] = c_string(env, item, what)) == NULL) {
      free_strings(list);
      return NULL;
    }
  }
  return list;
}

static void call_exit(napi_env env, napi_value callback, void *context, void *data) {
  waiter_t *w = data;
  (void)context;
  if (env != NULL) {
    int code = WIFEXITED(w->status) ? WEXITSTATUS(w->status) : 0;
    int signal_number = WIFSIGNALED(w->status) ? WTERMSIG(w->status) : 0;
    napi_value args[2], undefined;
    napi_create_int32(env, code, &args[0]);
    napi_create_int32(env, signal_number, &args[1]);
    napi_get_undefined(env, &undefined);
    napi_call_function(env, undefined, callback, 2, args, NULL);
  }
}

/* Reaps the command on a thread of its own (libuv reaps only the children it started itself). */
static void *wait_child(void *arg) {
  waiter_t *w = arg;
  pthread_setname_np(pthread_self(), "lathe-pty-wait"); /* for ps, gdb and the tests */
  int status = 0;
  while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
  }
  pthread_mutex_lock(&w->mutex);
  w->status = status;
  /* Never waits (the queue has no limit); fails only when Node has let go of the function. */
  if (!w->js_gone && napi_call_threadsafe_function(w->on_exit, w, napi_tsfn_nonblocking) == napi_ok) napi_release_threadsafe_function(w->on_exit, napi_tsfn_release);
  pthread_mutex_unlock(&w->mutex);
  waiter_release(w);
  return NULL;
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
    fail(env, "could not open a pseudo-terminal", errno);
    goto done;
  }
  if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, sizeof name) != 0) {
    fail(env, "could not prepare the pseudo-terminal", errno);
    goto done;
  }
  /* On the master, these set the terminal's (the slave's) modes and size. */
  struct termios modes;
  set_modes(&modes);
  struct winsize size = {(unsigned short)rows, (unsigned short)cols, 0, 0};
  if (tcsetattr(master, TCSANOW, &modes) != 0 || ioctl(master, TIOCSWINSZ, &size) != 0) {
    fail(env, "could not set the terminal's modes", errno);
    goto done;
  }

  posix_spawnattr_t attributes;
  posix_spawn_file_actions_t actions;
  sigset_t none, every;
  sigemptyset(&none);
  sigfillset(&every);
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
    fail(env, what, error);
    goto done;
  }

  waiter_t *w = calloc(1, sizeof *w);
  napi_value resource_name;
  napi_create_string_utf8(env, "lathe-pty-exit", NAPI_AUTO_LENGTH, &resource_name);
  pthread_t thread;
  if (w != NULL) {
    pthread_mutex_init(&w->mutex, NULL);
    w->pid = pid;
    w->owners = 2; /* the thread, the threadsafe function */
  }
  if (w == NULL || napi_create_threadsafe_function(env, argv[6], NULL, resource_name, 0, 1, w, finalize_on_exit, NULL, call_exit, &w->on_exit) != napi_ok) {
    /* Without a way to report the end, the command must not run unwatched. */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    if (w != NULL) {
      pthread_mutex_destroy(&w->mutex);
      free(w);
    }
    napi_throw_error(env, NULL, "could not watch the command");
    goto done;
  }
  if (pthread_create(&thread, NULL, wait_child, w) != 0) {
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    napi_release_threadsafe_function(w->on_exit, napi_tsfn_abort); /* its finalizer releases its share */
    waiter_release(w); /* the thread's */
    napi_throw_error(env, NULL, "could not start the thread that waits for the command");
    goto done;
  }
  pthread_detach(thread);
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
