{
  "targets": [
    {
      "target_name": "pty_reader",
      "sources": ["pty-reader.c", "pty-spawn.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O2", "-Wall"] }
    }
  ]
}
