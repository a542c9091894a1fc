"""Pre-flight callbacks for training frameworks. Each is imported on its own
(`vramplan.integrations.transformers`, `vramplan.integrations.lightning`), so `import vramplan` needs
neither library; each module imports its framework when it is there and still works without it."""
