"""Doublet: find passages of a document that also appear in other documents.

The package is layered so that data flows one way:

    files -> text (`doublet.sources`) -> units and fingerprints (`doublet.engine`)
          -> passages and measures (`doublet.engine`) -> reports (`doublet.cli`)

The engine knows nothing of files, editors or the command line.
"""

__version__ = "0.1.0"
