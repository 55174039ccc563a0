"""Properties that go into every request's head are checked at the door.

A CR or LF in ``http.agent.name`` used to be accepted and made every fetch
fail (the HTTP library refuses the header); now the job refuses to start,
with one line naming the property.
"""

import pytest

from crawllib.config import load_properties
from crawllib.config.fetch import HttpConfig
from crawllib.errors import ConfigError

HEADER_PROPERTIES = [
    "http.agent.name",
    "http.agent.version",
    "http.agent.description",
    "http.agent.url",
    "http.agent.email",
    "http.accept",
    "http.accept.language",
    "http.accept.charset",
    "http.proxy.host",
]
BAD = {
    "bot\r\nX-Injected: 1": "'\\r'",
    "bot\nX": "'\\n'",
    "bot\x1b]52;c;aGVsbG8=\x07": "'\\x1b'",
    "bot\x00": "'\\x00'",
    "bot\x7f": "'\\x7f'",
    "bot\x85x": "'\\x85'",  # (at the end it is stripped as whitespace)
    "bot\tname": "'\\t'",
    "bot 灯塔": "'灯'",
}


def _config(name: str, value: str) -> HttpConfig:
    defines = ["http.agent.name=testbot", f"{name}={value}"]
    return HttpConfig.from_properties(load_properties(defines=defines))


@pytest.mark.parametrize("name", HEADER_PROPERTIES)
@pytest.mark.parametrize("value", sorted(BAD))
def test_beamcrawl_a_header_property_with_a_control_character_is_refused(name, value):
    with pytest.raises(ConfigError) as raised:
        _config(name, value)
    message = str(raised.value)
    assert message.startswith(f"property {name}=")
    assert BAD[value] in message
    assert "\n" not in message
    assert "\r" not in message
    assert "\x1b" not in message


@pytest.mark.parametrize("name", HEADER_PROPERTIES)
def test_latin1_text_in_a_header_property_is_accepted(name):
    value = "bot é (crawler; mailto:a@b.example)"
    config = _config(name, value)
    sent = (config.user_agent, config.accept, config.accept_language)
    assert value in " ".join([*sent, config.accept_charset, config.proxy_host])


def test_nutch_agent_string_still_built_from_the_agent_properties():
    defines = [
        "http.agent.name=testbot",
        "http.agent.version=1.0",
        "http.agent.url=https://example.org/bot",
    ]
    config = HttpConfig.from_properties(load_properties(defines=defines))
    assert config.user_agent == "testbot/1.0 (https://example.org/bot)"
