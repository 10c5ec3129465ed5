filedesc://arc-no-blank-lines.arc 0.0.0.0 20261101120000 text/plain 83
1 0 redecode-broken-inputs
URL IP-address Archive-date Content-type Archive-length
http://example.com/nb0.html 93.184.216.34 20261101120000 text/html 160
HTTP/1.1 200 OK
Content-Type: text/html; charset=utf-8

<!doctype html><html><head><title>t</title></head><body><p>ARC record 0, no blank line</p></body></html>http://example.com/nb1.html 93.184.216.34 20261101120001 text/html 160
HTTP/1.1 200 OK
Content-Type: text/html; charset=utf-8

<!doctype html><html><head><title>t</title></head><body><p>ARC record 1, no blank line</p></body></html>
http://example.com/nb2.html 93.184.216.34 20261101120002 text/html 160
HTTP/1.1 200 OK
Content-Type: text/html; charset=utf-8

<!doctype html><html><head><title>t</title></head><body><p>ARC record 2, no blank line</p></body></html>