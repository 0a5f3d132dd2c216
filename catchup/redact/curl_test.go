package redact

import (
	"reflect"
	"strings"
	"testing"
)

func TestCurlCommand(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		// Grouped short options: the first that takes a value takes the
		// rest of the group, or the next word.
		"-su next word":        {"curl -su user:S3cret https://x", "curl -su user:*** https://x"},
		"-sSfu next word":      {"curl -sSfu user:S3cret https://x", "curl -sSfu user:*** https://x"},
		"-suuser glued":        {"curl -suuser:S3cret https://x", "curl -suuser:*** https://x"},
		"-sU proxy user":       {"curl -sU p:S3cret -x h:3128 https://x", "curl -sU p:*** -x h:3128 https://x"},
		"-su quoted":           {`curl -su 'user:S3 cret' h; curl -sSu"a:S3cret" h`, `curl -su 'user:***' h; curl -sSu"a:***" h`},
		"-s -o out -u":         {"curl -s -o out -u user:S3cret https://x", "curl -s -o out -u user:*** https://x"},
		"-so out -u":           {"curl -so out.txt -u user:S3cret h", "curl -so out.txt -u user:*** h"},
		"-E cert:password":     {"curl -E client.pem:S3cret https://x", "curl -E client.pem:*** https://x"},
		"-sE glued cert":       {"curl -sEclient.pem:S3cret https://x", "curl -sEclient.pem:*** https://x"},
		"--cert":               {"curl --cert client.pem:S3cret --proxy-cert p.pem:S3cret h", "curl --cert client.pem:*** --proxy-cert p.pem:*** h"},
		"--cert escaped colon": {`curl --cert 'a\:b.pem:S3cret' h`, `curl --cert 'a\:b.pem:***' h`},
		"--oauth2-bearer":      {"curl --oauth2-bearer S3cret https://x", "curl --oauth2-bearer *** https://x"},
		"--oauth2-bearer=":     {"curl --oauth2-bearer=S3cret https://x", "curl --oauth2-bearer=*** https://x"},
		"--pass":               {"curl --key k.pem --pass 'S3cret' --proxy-pass S3cret h", "curl --key k.pem --pass '***' --proxy-pass *** h"},
		"--tlspassword":        {"curl --tlsuser u --tlspassword S3cret h", "curl --tlsuser u --tlspassword *** h"},
		"partly quoted value":  {`curl -u"a:S3cret"x h; curl -u a:"S3 cret" h; curl -u a:S3cret\"x\" h`, `curl -u"a:***" h; curl -u a:***"" h; curl -u a:***\"\" h`},
		"notify-cmd text":      {`curl -sSfu ops:S3cret -d "task failed" https://h/alert`, `curl -sSfu ops:*** -d "task failed" https://h/alert`},
		// curl run through another program.
		"docker image curl":  {"docker run --rm curlimages/curl curl -u user:S3cret https://x", "docker run --rm curlimages/curl curl -u user:*** https://x"},
		"docker image entry": {"docker run --rm -u 1000:1000 curlimages/curl:8.5.0 -su user:S3cret https://x", "docker run --rm -u 1000:1000 curlimages/curl:8.5.0 -su user:*** https://x"},
		"ssh curl":           {"ssh host curl -u user:S3cret https://x", "ssh host curl -u user:*** https://x"},
		"ssh quoted curl":    {`ssh host 'curl -su user:S3cret https://x'`, `ssh host 'curl -su user:*** https://x'`},
		"ssh nested quotes":  {`ssh host "sh -c 'curl --pass S3cret h'"`, `ssh host "sh -c 'curl --pass *** h'"`},
		"timeout curl":       {"timeout 30 curl -u user:S3cret https://x", "timeout 30 curl -u user:*** https://x"},
		"xargs curl":         {"cat urls | xargs -n1 curl -sSu user:S3cret", "cat urls | xargs -n1 curl -sSu user:***"},
		"curl.exe":           {`C:/bin/curl.exe -u user:S3cret h`, `C:/bin/curl.exe -u user:*** h`},
		"echo curl":          {"echo curl -u a:S3cret", "echo curl -u a:***"},
		// Not a secret: kept.
		"-o takes -u":             {"curl -o -u user:pw https://x", "curl -o -u user:pw https://x"},
		"-H takes -u":             {"curl -H -u -s user:pw", "curl -H -u -s user:pw"},
		"--output takes -u":       {"curl --output -u user:pw h", "curl --output -u user:pw h"},
		"after --":                {"curl -s -- -u user:pw", "curl -s -- -u user:pw"},
		"-su variable":            {`curl -su "$CREDS" h; curl -sSfu admin:$PASS h; curl -su "u:${P}" h`, `curl -su "$CREDS" h; curl -sSfu admin:$PASS h; curl -su "u:${P}" h`},
		"--oauth2-bearer var":     {`curl --oauth2-bearer "$TOKEN" --pass $(cat /p) -E "c.pem:$PW" h`, `curl --oauth2-bearer "$TOKEN" --pass $(cat /p) -E "c.pem:$PW" h`},
		"-E without password":     {"curl -E client.pem --cert 'pkcs11:object=c;type=cert' https://x", "curl -E client.pem --cert 'pkcs11:object=c;type=cert' https://x"},
		"-E windows drive":        {`curl -E C:/certs/c.pem h`, `curl -E C:/certs/c.pem h`},
		"other options' value":    {"curl -x proxy:3128 -A a:b -e r:s -d a:b -w %{http_code}:x h", "curl -x proxy:3128 -A a:b -e r:s -d a:b -w %{http_code}:x h"},
		"sort rsync tar ps -u":    {"sort -u a:b; rsync -u a:b c; tar -u -f a:b; ps -u root", "sort -u a:b; rsync -u a:b c; tar -u -f a:b; ps -u root"},
		"docker -u uid:gid":       {"docker run -u 1000:1000 img", "docker run -u 1000:1000 img"},
		"docker -u before curl":   {"docker run -u 1000:1000 img curl https://x", "docker run -u 1000:1000 img curl https://x"},
		"curl URL word":           {"wget https://example.com/curl -u a:b", "wget https://example.com/curl -u a:b"},
		"curl in another command": {"apt-get install -y curl; sort -u a:b", "apt-get install -y curl; sort -u a:b"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Command(tc.in)
			if got != tc.want {
				t.Errorf("Command(%q)\n = %q\nwant %q", tc.in, got, tc.want)
			}
			if strings.Contains(got, "S3cret") {
				t.Errorf("Command(%q) = %q keeps the secret", tc.in, got)
			}
			if again := Command(got); again != got {
				t.Errorf("Command is not idempotent on %q: %q", got, again)
			}
		})
	}
}

func TestCurlArgv(t *testing.T) {
	tests := map[string]struct{ in, want []string }{
		"-su":             {[]string{"curl", "-su", "u:S3cret", "h"}, []string{"curl", "-su", "u:***", "h"}},
		"-sSfuu glued":    {[]string{"curl", "-sSfuu:S3cret", "h"}, []string{"curl", "-sSfuu:***", "h"}},
		"-E":              {[]string{"curl", "-E", "c.pem:S3cret", "h"}, []string{"curl", "-E", "c.pem:***", "h"}},
		"--oauth2-bearer": {[]string{"curl", "--oauth2-bearer", "S3cret", "h"}, []string{"curl", "--oauth2-bearer", "***", "h"}},
		"--pass":          {[]string{"/usr/bin/curl", "--pass", "S3cret", "h"}, []string{"/usr/bin/curl", "--pass", "***", "h"}},
		"docker curl":     {[]string{"docker", "run", "--rm", "curlimages/curl", "curl", "-u", "u:S3cret"}, []string{"docker", "run", "--rm", "curlimages/curl", "curl", "-u", "u:***"}},
		"ssh curl line":   {[]string{"ssh", "host", "curl -su u:S3cret h"}, []string{"ssh", "host", "curl -su u:*** h"}},
		"xargs curl":      {[]string{"xargs", "curl", "-u", "u:S3cret"}, []string{"xargs", "curl", "-u", "u:***"}},
		"-o -u":           {[]string{"curl", "-o", "-u", "u:pw"}, []string{"curl", "-o", "-u", "u:pw"}},
		"docker -u":       {[]string{"docker", "run", "-u", "1000:1000", "img"}, []string{"docker", "run", "-u", "1000:1000", "img"}},
		"rsync -u":        {[]string{"rsync", "-u", "a:b", "c"}, []string{"rsync", "-u", "a:b", "c"}},
		"-su variable":    {[]string{"curl", "-su", "$CREDS"}, []string{"curl", "-su", "$CREDS"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Argv(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Argv(%q)\n = %q\nwant %q", tc.in, got, tc.want)
			}
			if again := Argv(got); !reflect.DeepEqual(again, got) {
				t.Errorf("Argv is not idempotent on %q: %q", got, again)
			}
		})
	}
}

func TestCurlMasked(t *testing.T) {
	for _, in := range []string{"curl -su u:*** h", "curl --oauth2-bearer *** h", "curl -E c.pem:*** h", "curl --pass *** h", "ssh h curl -u u:*** x"} {
		if !Masked(in) {
			t.Errorf("Masked(%q) = false, want true", in)
		}
	}
}
