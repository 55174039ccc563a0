"""A job that fetches refuses a header property with CR/LF before it starts."""

import pytest

from pipelines.cli import main


@pytest.mark.parametrize("command", ["fetch", "parsechecker", "crawl"])
def test_a_crlf_agent_name_stops_the_command_with_one_line(command, tmp_path, capsys):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://127.0.0.1:9/\n")
    target = ["--seeds", str(seeds), str(tmp_path / "crawl"), "1"]
    arguments = target if command == "crawl" else [str(tmp_path / "x")]
    capsys.readouterr()
    assert main([command, *arguments, "-Dhttp.agent.name=bot\r\nX-Evil: 1"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        "beamcrawl: property http.agent.name='bot\\r\\nX-Evil: 1' is invalid: "
        "expected text that can go in an HTTP header "
        "(it holds the control character '\\r')"
    )
    assert not (tmp_path / "crawl").exists()  # crawl: refused before inject
