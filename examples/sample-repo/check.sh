# A sample check: what an untrusted PR's test step might try, and what it gets.
echo "user: $(id -u):$(id -g)"
echo "files copied to /work: $(ls /work | tr '\n' ' ')"
if timeout 3 wget -q -O /dev/null http://example.com 2>/dev/null; then echo "network: yes"; else echo "network: none"; fi
if ( : > /repo/x ) 2>/dev/null; then echo "repo: writable"; else echo "repo: read-only"; fi
echo "GITHUB_TOKEN: ${GITHUB_TOKEN:-absent}"
echo "sample check passed"
