# Sphinx configuration of the DAX lab site.  Built by "make docs" with
# warnings as errors; "make docs INSTRUCTOR=1" adds the solutions/ notes.
import os

project = "DAX lab"
author = "the DAX lab authors"
copyright = "2026, " + author
release = "6.1"

extensions = ["sphinx.ext.graphviz", "sphinx.ext.todo"]
graphviz_output_format = "svg"

instructor = os.environ.get("INSTRUCTOR", "") not in ("", "0")
exclude_patterns = ["build", "README.md", ".ci", "tests", "kernel-patches", "bench",
                    "**/skeleton", "**/checks", "**/kunit"]
if not instructor:
    exclude_patterns.append("solutions")

root_doc = "index"
html_theme = "alabaster"
html_title = "DAX lab"
html_theme_options = {
    "description": "Rebuild Linux DAX, piece by piece, on Linux 6.1",
    "fixed_sidebar": True,
    "page_width": "1100px",
    "sidebar_width": "240px",
}
html_show_sourcelink = False
nitpicky = False
highlight_language = "none"


def _add_instructor_notes(app, docname, source):
    """The instructor build lists the solutions/ notes on the front page."""
    if instructor and docname == "index":
        source[0] += ("\n\n.. toctree::\n   :maxdepth: 1\n"
                      "   :caption: Instructor notes\n   :glob:\n\n"
                      "   solutions/*/index\n")


def setup(app):
    app.connect("source-read", _add_instructor_notes)
