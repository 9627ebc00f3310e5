{
  "targets": [
    {
      "target_name": "pty_reader",
      "sources": ["pty-reader.c", "pty-spawn.c", "pipe-spawn.c", "spawn-common.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O2", "-Wall"] }
    }
  ]
}
