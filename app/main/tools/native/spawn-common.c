/* Shared by pty-spawn.c and pipe-spawn.c: see spawn-common.h for the contract. */
#include "spawn-common.h"

#ifdef LATHE_CAN_SPAWN
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

char *c_string(napi_env env, napi_value value, const char *what) {
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

void free_strings(char **list) {
  if (list == NULL) return;
  for (char **p = list; *p != NULL; p++) free(*p);
  free(list);
}

char **c_strings(napi_env env, napi_value array, const char *what) {
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

napi_value throw_errno(napi_env env, const char *what, int error) {
  char message[1400], code[32];
#if __GLIBC__ > 2 || __GLIBC_MINOR__ >= 32
  const char *name = strerrorname_np(error);
#else
  const char *name = NULL;
#endif
  if (name != NULL) snprintf(code, sizeof code, "%s", name);
  else snprintf(code, sizeof code, "E%d", error);
  snprintf(message, sizeof message, "%s: %s", what, strerror(error));
  napi_throw_error(env, code, message);
  return NULL;
}

void fill_all_signals(sigset_t *set) {
  const int bits = 8 * sizeof set->__val[0];
  sigfillset(set);
  /* By hand: sigaddset refuses them. Below SIGRTMIN they are glibc's, never a program's. */
  for (int sig = 32; sig <= 33 && sig < SIGRTMIN; sig++) set->__val[(sig - 1) / bits] |= 1UL << ((sig - 1) % bits);
}

/*
 * Shared by the thread that waits for the child and the threadsafe function (until its
 * finalizer): freed when both are done. The thread calls the function only under the mutex and
 * only while js_gone is 0; the finalizer (which runs before Node frees the function, also when
 * the environment is torn down while the child runs: a worker's exit) sets it under the mutex.
 */
typedef struct waiter {
  pid_t pid;
  const char *thread_name; /* at most 15 characters (the kernel keeps 16 with the NUL) */
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

static int reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

/*
 * Main thread (env NULL when the environment is torn down with this call queued: then it only
 * reaps). The queued call holds a share of the waiter: at teardown Node runs the finalizer first.
 */
static void call_exit(napi_env env, napi_value callback, void *context, void *data) {
  waiter_t *w = data;
  (void)context;
  int status = reap(w->pid);
  if (env != NULL) {
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    int signal_number = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    napi_value args[2], undefined;
    napi_create_int32(env, code, &args[0]);
    napi_create_int32(env, signal_number, &args[1]);
    napi_get_undefined(env, &undefined);
    napi_call_function(env, undefined, callback, 2, args, NULL);
  }
  waiter_release(w);
}

/* Waits for the child on a thread of its own (libuv reaps only the children it started itself). */
static void *wait_child(void *arg) {
  waiter_t *w = arg;
  pthread_setname_np(pthread_self(), w->thread_name); /* for ps, gdb and the tests */
  siginfo_t info;
  /* WNOWAIT: the child stays a zombie, its pid taken, until call_exit reaps it on the main thread. */
  while (waitid(P_PID, (id_t)w->pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  pthread_mutex_lock(&w->mutex);
  /* Never waits (the queue has no limit); fails only when Node has let go of the function. */
  int told = 0;
  if (!w->js_gone) {
    w->owners++; /* the queued call's */
    told = napi_call_threadsafe_function(w->on_exit, w, napi_tsfn_nonblocking) == napi_ok;
    if (told) napi_release_threadsafe_function(w->on_exit, napi_tsfn_release);
    else w->owners--;
  }
  pthread_mutex_unlock(&w->mutex);
  if (!told) reap(w->pid); /* nobody will: no zombie left behind */
  waiter_release(w);
  return NULL;
}

int watch_child(napi_env env, pid_t pid, napi_value on_exit, const char *thread_name) {
  waiter_t *w = calloc(1, sizeof *w);
  napi_value resource_name;
  napi_create_string_utf8(env, thread_name, NAPI_AUTO_LENGTH, &resource_name);
  pthread_t thread;
  if (w != NULL) {
    pthread_mutex_init(&w->mutex, NULL);
    w->pid = pid;
    w->thread_name = thread_name; /* a string literal */
    w->owners = 2;                /* the thread, the threadsafe function */
  }
  if (w == NULL || napi_create_threadsafe_function(env, on_exit, NULL, resource_name, 0, 1, w, finalize_on_exit, NULL, call_exit, &w->on_exit) != napi_ok) {
    /* Without a way to report the end, the child must not run unwatched. */
    kill(pid, SIGKILL);
    reap(pid);
    if (w != NULL) {
      pthread_mutex_destroy(&w->mutex);
      free(w);
    }
    napi_throw_error(env, NULL, "could not watch the command");
    return -1;
  }
  if (pthread_create(&thread, NULL, wait_child, w) != 0) {
    kill(pid, SIGKILL);
    reap(pid);
    napi_release_threadsafe_function(w->on_exit, napi_tsfn_abort); /* its finalizer releases its share */
    waiter_release(w);                                             /* the thread's */
    napi_throw_error(env, NULL, "could not start the thread that waits for the command");
    return -1;
  }
  pthread_detach(thread);
  return 0;
}
#endif
