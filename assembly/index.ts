// Re-exports every kernel family; the build compiles this file.
