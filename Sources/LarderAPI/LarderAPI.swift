// Placeholder: this target is built up by its issue (see docs/ARCHITECTURE.md).
