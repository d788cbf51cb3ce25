"""The language server: an adapter from LSP to the workspace and the engine.

Nothing here matches text. The server keeps the editor's view of the world
(open buffers, settings, versions) and turns workspace answers into
diagnostics, hovers, code actions and command results.
"""
