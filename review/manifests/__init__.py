"""Sample designs (seeded, stratified) and the frozen manifests drawn with them from a release:
models, the samplers, freezing and bundles, the scoped reads, the API and the admin pages."""
