/*
 * Reads a pseudo-terminal's output on a thread of its own and hands it to JavaScript in batches
 * (Node-API; loaded by ../pty-reader.ts, built by scripts/build-native.mjs).
 *
 * Why: Linux's pty gives at most about 4 KB per read. node-pty reads on the main thread, so each
 * 4 KB costs a turn of the event loop (epoll, read, a Buffer, a stream event): 24,000 turns for
 * 100 MB. This thread reads until the pty is empty and hands over one batch of up to BATCH_MAX
 * bytes per call: about 1,500 calls for 100 MB, and the main thread is free for the UI.
 *
 * Contract:
 * - start(fd, onData) reads from a duplicate of fd (the caller's fd is never closed or read here)
 *   and returns a handle with stop(). onData(chunk: Uint8Array | null, end: boolean) runs on the
 *   main thread, in order; the last call has end = true (chunk may be null), exactly once. A chunk
 *   is valid until handle.ack() (its memory then takes the next batch): copy what must be kept.
 * - A batch is handed over once it holds BATCH_MIN bytes, or when the pty has been silent for
 *   QUIET_MS (a prompt shows at once), or at the end.
 * - At most one batch waits for JavaScript; while it waits, reading goes on into the next one up
 *   to BATCH_MAX bytes, then stops (the command then blocks on a full pty, as with any reader).
 *   A batch is done when JavaScript calls handle.ack(), which it does from a later turn of the
 *   event loop: Node runs a threadsafe function's queued calls back to back (up to 1,000 before
 *   the loop turns), so a batch handed over as soon as the last one returned kept the main thread
 *   for seconds (bench:ui: the services' event loop delayed 15 s by four streaming commands).
 * - It ends at end of file or EIO (every process holding the terminal has closed it), or after
 *   stop(): then it reads what the pty holds at that moment (without waiting), hands it over and ends.
 *   (At most BATCH_MAX more bytes: a writer that never pauses cannot keep it going.)
 * - Errors other than EINTR/EAGAIN end it like the end of file. Never throws into JavaScript but
 *   for a wrong argument to start(). An exception thrown by onData is Node's to report; the
 *   reading goes on.
 * - When it ends, the duplicate is closed at once (not when the handle is collected): the pty
 *   closes as soon as the caller's fd is closed too. stop() and ack() may be called any number
 *   of times, before or after the end, also once the handle is gone (kept as functions).
 * - If the environment is torn down first (a worker's exit, the process's), the thread stops
 *   reading, drops what it holds and ends without calling into Node again; onData is not called.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include <node_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BATCH_MIN (64 * 1024)
#define BATCH_MAX (256 * 1024)
#define QUIET_MS 1

/*
 * Lifetime: the reader's memory is shared by the thread, the stop and ack functions, the
 * threadsafe function (until its finalizer) and each batch in its queue (owners): freed when all
 * are done.
 * The descriptors (the duplicate and the stop pipe) are closed by the thread as it ends (ended),
 * so the pty closes once node-pty's own descriptor is closed too, without waiting for the
 * collector; stop() writes to the pipe only before that. The thread calls the threadsafe function
 * only while holding the mutex and only while js_gone is 0: its finalizer (which runs before Node
 * frees it, also when the environment is torn down with the thread still running) sets js_gone
 * under the same mutex, as does a failed call (napi_closing: Node has dropped the thread's share).
 */
typedef struct reader {
  int fd;
  int stop_pipe[2];
  napi_threadsafe_function on_data;
  pthread_mutex_t mutex;
  pthread_cond_t consumed;
  int waiting; /* batches handed over and not yet consumed by JavaScript */
  int stopping;
  int ended; /* the thread has closed the descriptors */
  int js_gone; /* the threadsafe function must not be called again */
  int owners;
  struct batch *spare; /* a batch JavaScript is done with, for the next one */
  napi_ref view_buffer; /* one Buffer of BATCH_MAX bytes the batches are copied into, in turn */
} reader_t;

typedef struct batch {
  reader_t *reader;
  size_t length;
  int end;
  char bytes[BATCH_MAX];
} batch_t;

static void close_descriptors(reader_t *r) {
  if (r->fd >= 0) close(r->fd);
  if (r->stop_pipe[0] >= 0) close(r->stop_pipe[0]);
  if (r->stop_pipe[1] >= 0) close(r->stop_pipe[1]);
  r->fd = r->stop_pipe[0] = r->stop_pipe[1] = -1;
}

static void reader_free(reader_t *r) {
  free(r->spare);
  close_descriptors(r);
  pthread_mutex_destroy(&r->mutex);
  pthread_cond_destroy(&r->consumed);
  free(r);
}

static void release(reader_t *r) {
  pthread_mutex_lock(&r->mutex);
  int last = --r->owners == 0;
  pthread_mutex_unlock(&r->mutex);
  if (last) reader_free(r);
}

/* Asks the thread to end (with the mutex held): once, and only while the pipe is open. */
static void request_stop(reader_t *r) {
  if (!r->stopping && !r->ended) {
    char one = 1;
    ssize_t ignored = write(r->stop_pipe[1], &one, 1);
    (void)ignored;
  }
  r->stopping = 1;
}

/*
 * Main thread (env NULL when the environment is going away: then only the memory is given back).
 * The batch is copied into the reader's one Buffer and shown to JavaScript as a Uint8Array over
 * its start, valid until ack() (only this function writes the Buffer, and the next batch waits
 * for the ack): no new memory per batch, so none waits for the collector (fresh 256 KB Buffers
 * per batch added 25 MB of peak RSS in bench:tools).
 */
static void call_js(napi_env env, napi_value callback, void *context, void *data) {
  batch_t *batch = data;
  reader_t *r = batch->reader;
  (void)context;
  if (env != NULL) {
    napi_value args[2], undefined, buffer, array_buffer;
    void *target = NULL;
    size_t offset = 0;
    napi_get_null(env, &args[0]);
    if (batch->length > 0 && napi_get_reference_value(env, r->view_buffer, &buffer) == napi_ok &&
        napi_get_typedarray_info(env, buffer, NULL, NULL, &target, &array_buffer, &offset) == napi_ok && target != NULL) {
      memcpy(target, batch->bytes, batch->length);
      napi_create_typedarray(env, napi_uint8_array, batch->length, array_buffer, offset, &args[0]);
    }
    napi_get_boolean(env, batch->end, &args[1]);
    napi_get_undefined(env, &undefined);
    napi_call_function(env, undefined, callback, 2, args, NULL);
    if (batch->end) napi_delete_reference(env, r->view_buffer);
  }
  pthread_mutex_lock(&r->mutex);
  /* JavaScript says when it wants the next batch (ack); without JavaScript, nobody will. */
  if (!batch->end && env == NULL && r->waiting > 0) {
    r->waiting--;
    pthread_cond_signal(&r->consumed);
  }
  if (r->spare == NULL && !r->ended) r->spare = batch;
  else free(batch);
  pthread_mutex_unlock(&r->mutex);
  release(r); /* the batch's share */
}

/* The threadsafe function is about to be freed (after the thread released it, or at teardown). */
static void finalize_on_data(napi_env env, void *data, void *hint) {
  reader_t *r = data;
  (void)env;
  (void)hint;
  pthread_mutex_lock(&r->mutex);
  r->js_gone = 1;
  request_stop(r);
  pthread_cond_signal(&r->consumed);
  pthread_mutex_unlock(&r->mutex);
  release(r);
}

/* Memory for the next batch: what JavaScript gave back, else new (NULL when there is none). */
static batch_t *next_batch(reader_t *r) {
  pthread_mutex_lock(&r->mutex);
  batch_t *batch = r->spare;
  r->spare = NULL;
  pthread_mutex_unlock(&r->mutex);
  if (batch == NULL) batch = malloc(sizeof *batch);
  if (batch != NULL) batch->reader = r;
  return batch;
}

static void wait_consumed(reader_t *r) {
  pthread_mutex_lock(&r->mutex);
  while (r->waiting > 0 && !r->js_gone) pthread_cond_wait(&r->consumed, &r->mutex);
  pthread_mutex_unlock(&r->mutex);
}

static int busy(reader_t *r) {
  pthread_mutex_lock(&r->mutex);
  int waiting = r->waiting > 0;
  pthread_mutex_unlock(&r->mutex);
  return waiting;
}

/* Hands `batch` over (taking it); returns 0 when JavaScript is gone. */
static int hand_over(reader_t *r, batch_t *batch, size_t length, int end) {
  batch->length = length;
  batch->end = end;
  pthread_mutex_lock(&r->mutex);
  int ok = !r->js_gone;
  if (ok) {
    r->waiting += !end;
    r->owners++;
    /* Never waits (the queue has no limit): the mutex is not held for long. */
    ok = napi_call_threadsafe_function(r->on_data, batch, napi_tsfn_nonblocking) == napi_ok;
    if (!ok) {
      r->js_gone = 1; /* napi_closing: Node has let go of the thread's share */
      r->waiting -= !end;
      r->owners--;
    }
  }
  pthread_mutex_unlock(&r->mutex);
  if (!ok) free(batch);
  return ok;
}

/* 0 running, 1 stop() was called, 2 JavaScript is gone (nothing more to read for). */
static int stop_state(reader_t *r) {
  pthread_mutex_lock(&r->mutex);
  int state = r->js_gone ? 2 : r->stopping;
  pthread_mutex_unlock(&r->mutex);
  return state;
}

static void *read_loop(void *arg) {
  reader_t *r = arg;
  /* A name for ps, gdb and the tests (/proc/self/task/<id>/comm). */
#if defined(__linux__)
  pthread_setname_np(pthread_self(), "lathe-pty-read");
#elif defined(__APPLE__)
  pthread_setname_np("lathe-pty-read");
#endif
  batch_t *end_only = malloc(offsetof(batch_t, bytes)); /* the end (no bytes), should memory run out */
  batch_t *batch = next_batch(r);
  size_t used = 0;
  size_t after_stop = 0; /* bytes read since stop(): a writer that never pauses cannot hold the thread */
  int alive = batch != NULL;
  while (alive) {
    int state = stop_state(r);
    if (state == 2) break;
    ssize_t n = read(r->fd, batch->bytes + used, BATCH_MAX - used);
    if (n > 0) {
      used += (size_t)n;
      if (state == 1 && (after_stop += (size_t)n) >= BATCH_MAX) break;
      if (used < BATCH_MIN || (used < BATCH_MAX && busy(r))) continue;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      if (state == 1) break; /* stopped: what the pty held is read */
      struct pollfd fds[2] = {{r->fd, POLLIN, 0}, {r->stop_pipe[0], POLLIN, 0}};
      /* The pty quiet for QUIET_MS with bytes held: they go over now (a prompt, the last line). */
      if (poll(fds, 2, used > 0 ? QUIET_MS : -1) != 0 || used == 0) continue;
    } else {
      break; /* end of file, EIO (the terminal was closed on the other side) or another error */
    }
    wait_consumed(r);
    alive = hand_over(r, batch, used, 0);
    batch = alive ? next_batch(r) : NULL;
    used = 0;
    alive = alive && batch != NULL;
  }
  if (batch == NULL) {
    batch = end_only;
    end_only = NULL;
    used = 0;
  }
  free(end_only);
  if (batch != NULL) {
    wait_consumed(r);
    hand_over(r, batch, used, 1);
  }
  pthread_mutex_lock(&r->mutex);
  if (!r->js_gone) napi_release_threadsafe_function(r->on_data, napi_tsfn_release);
  r->ended = 1;
  close_descriptors(r);
  pthread_mutex_unlock(&r->mutex);
  release(r);
  return NULL;
}

static void finalize_stop(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  release(data);
}

static napi_value ack(napi_env env, napi_callback_info info) {
  void *data;
  napi_get_cb_info(env, info, NULL, NULL, NULL, &data);
  reader_t *r = data;
  pthread_mutex_lock(&r->mutex);
  if (r->waiting > 0) r->waiting--;
  pthread_cond_signal(&r->consumed);
  pthread_mutex_unlock(&r->mutex);
  return NULL;
}

static napi_value stop(napi_env env, napi_callback_info info) {
  void *data;
  napi_get_cb_info(env, info, NULL, NULL, NULL, &data);
  reader_t *r = data;
  pthread_mutex_lock(&r->mutex);
  request_stop(r);
  pthread_mutex_unlock(&r->mutex);
  return NULL;
}

static napi_value throw_error(napi_env env, const char *message) {
  napi_throw_error(env, NULL, message);
  return NULL;
}

static napi_value start(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t fd;
  napi_valuetype kind;
  if (argc < 2 || napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) return throw_error(env, "start(fd, onData): fd must be a file descriptor");
  if (napi_typeof(env, argv[1], &kind) != napi_ok || kind != napi_function) return throw_error(env, "start(fd, onData): onData must be a function");
  reader_t *r = calloc(1, sizeof *r);
  if (r == NULL) return throw_error(env, "out of memory");
  r->stop_pipe[0] = r->stop_pipe[1] = -1;
  r->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (r->fd < 0) {
    free(r);
    return throw_error(env, "could not duplicate the terminal's file descriptor");
  }
  if (pipe(r->stop_pipe) != 0) {
    close(r->fd);
    free(r);
    return throw_error(env, "could not create a pipe");
  }
  fcntl(r->stop_pipe[0], F_SETFD, FD_CLOEXEC);
  fcntl(r->stop_pipe[1], F_SETFD, FD_CLOEXEC);
  /* The pty's file status flags are shared with node-pty's descriptor: non-blocking already. */
  fcntl(r->fd, F_SETFL, fcntl(r->fd, F_GETFL) | O_NONBLOCK);
  pthread_mutex_init(&r->mutex, NULL);
  pthread_cond_init(&r->consumed, NULL);
  napi_value name, handle, stop_fn, view;
  void *view_data;
  if (napi_create_buffer(env, BATCH_MAX, &view_data, &view) != napi_ok || napi_create_reference(env, view, 1, &r->view_buffer) != napi_ok) {
    reader_free(r);
    return throw_error(env, "could not allocate the reader's buffer");
  }
  napi_create_string_utf8(env, "lathe-pty-reader", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, argv[1], NULL, name, 0, 1, r, finalize_on_data, NULL, call_js, &r->on_data) != napi_ok) {
    napi_delete_reference(env, r->view_buffer);
    reader_free(r);
    return throw_error(env, "could not create the callback");
  }
  r->owners = 4; /* the thread, the stop and ack functions, the threadsafe function */
  napi_value ack_fn;
  napi_create_object(env, &handle);
  napi_create_function(env, "stop", NAPI_AUTO_LENGTH, stop, r, &stop_fn);
  napi_set_named_property(env, handle, "stop", stop_fn);
  napi_create_function(env, "ack", NAPI_AUTO_LENGTH, ack, r, &ack_fn);
  napi_set_named_property(env, handle, "ack", ack_fn);
  /* stop() and ack() reach the reader: each one's share goes when it is collected. */
  napi_add_finalizer(env, stop_fn, r, finalize_stop, NULL, NULL);
  napi_add_finalizer(env, ack_fn, r, finalize_stop, NULL, NULL);
  pthread_t thread;
  if (pthread_create(&thread, NULL, read_loop, r) != 0) {
    pthread_mutex_lock(&r->mutex);
    r->ended = 1;
    close_descriptors(r);
    pthread_mutex_unlock(&r->mutex);
    napi_delete_reference(env, r->view_buffer);
    napi_release_threadsafe_function(r->on_data, napi_tsfn_abort); /* its finalizer releases its share */
    release(r); /* the thread's share */
    return throw_error(env, "could not start the reading thread");
  }
  pthread_detach(thread);
  return handle;
}

/* pty-spawn.c: spawn(), pipe-spawn.c: spawnPipes(), where the system has what they need. */
void register_spawn(napi_env env, napi_value exports);
void register_spawn_pipes(napi_env env, napi_value exports);

/*
 * The threads (a reader, a child's waiter) run this library's code and outlive the environment
 * that started them: a worker that ends while a command runs makes Node dlclose() the library,
 * and the thread then returns into unmapped code (SIGSEGV, the whole process). Pinned: the
 * library stays loaded until the process ends (RTLD_NODELETE on a handle it already has).
 */
static void pin_library(void) {
  Dl_info info;
  if (dladdr((void *)pin_library, &info) != 0 && info.dli_fname != NULL) dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

NAPI_MODULE_INIT() {
  pin_library();
  napi_value fn;
  napi_create_function(env, "start", NAPI_AUTO_LENGTH, start, NULL, &fn);
  napi_set_named_property(env, exports, "start", fn);
  register_spawn(env, exports);
  register_spawn_pipes(env, exports);
  return exports;
}
