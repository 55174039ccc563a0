import subprocess
import sys

# what reading a configuration must not import: the jobs' code, and the
# loader of the user's link policy (which imports the user's module)
_NOT_IMPORTED = (
    "crawllib.fetch",
    "crawllib.parse",
    "crawllib.db",
    "crawllib.index",
    "crawllib.sitemaps",
    "crawllib.urls.linkpolicy",
)


def test_the_config_package_imports_no_job_nor_link_policy():
    code = (
        "import sys, crawllib.config\n"
        f"print(sorted(m for m in sys.modules if m.startswith({_NOT_IMPORTED!r})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout == "[]\n"
