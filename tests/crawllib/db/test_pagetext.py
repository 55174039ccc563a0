from crawllib.db.pagetext import render_page
from crawllib.webpage import new_page


def test_readdb_url_shows_every_set_field():
    page = new_page(
        "http://example.com/",
        status=2,
        fetchTime=1_700_000_000_000,
        fetchInterval=60,
        protocolStatus={"code": 14, "args": ["a", "b"], "lastModified": 0},
        parseStatus={"majorCode": 1, "minorCode": 0, "args": []},
        signature=b"\x01\xab",
        title="Example",
        score=1.5,
        markers={"_injmrk_": "y", "dist": "0"},
        metadata={"source": b"list"},
        outlinks={"http://example.com/a": "A"},
    )
    lines = render_page(page).splitlines()
    assert lines[0] == "url:\thttp://example.com/"
    assert "status:\t2 (status_fetched)" in lines
    assert "fetchTime:\t1700000000000 (2023-11-14T22:13:20Z)" in lines
    assert "prevFetchTime:\t0" in lines
    assert "protocolStatus:\tNOTFOUND (14), args=[a,b]" in lines
    assert "parseStatus:\tsuccess/ok (1/0)" in lines
    assert "signature:\t01ab" in lines
    assert "title:\tExample" in lines
    assert "score:\t1.5" in lines
    assert "marker _injmrk_ :\ty" in lines
    assert "metadata source :\tlist" in lines
    assert "outlinks:\t1" in lines
    assert not any(line.startswith("prevSignature") for line in lines)
