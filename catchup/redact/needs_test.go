package redact

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestNeedsMaskAsEveryRule: a rule's needs (clues.go) never keep it from a
// text it would mask. Every string of this package's tests (each shape of
// a secret they pin, and each that must stay whole), and the cases below,
// is masked as a command line, as an argv's words and as a `sh -c` line,
// once with the needs and once searched by every rule: alike.
func TestNeedsMaskAsEveryRule(t *testing.T) {
	texts := append(testStrings(t),
		"PASSWORD=x", "Password: x", "paſsword=x", "db_paſs=x", "api_\u212aey=x", "X-API-\u212aEY: x", "--PAſSWORD x",
		"curl -H 'X-Auth-Token: x' https://H", "HTTPS://U:P@H/", "//u:p@h", "psql -c \"ALTER ROLE a PASSWORD 'x'\"",
		"mysql -e \"CREATE USER a IDENTIFIED BY 'x'\"", "x PASSWORD = y", "keytool -STOREPASS x", "tool --api-key x",
		"echo '{\"Token\": \"x\"}'", `curl -d "{\"Secret\":\"x\"}"`, "https://hooks.SLACK.com/services/T/B/x", "GITHUB_PAT=ghp_x",
		"sh -c 'cd /srv && ./bin/settle --date \"$CATCHUP_SLOT\" >> /var/log/settle.log 2>&1'", "true", "")
	for _, p := range strings.Split(strings.NewReplacer(`\.`, ".", "[abposre]", "b").Replace(tokenPrefixes), "|") {
		texts = append(texts, "deploy "+p+"0123456789abcdefghijKLMN", "X="+strings.ToUpper(p)+"0123456789abcdefghijKLMN")
	}
	if len(texts) < 300 {
		t.Fatalf("only %d strings found in this package's tests: the corpus was not read", len(texts))
	}
	for _, text := range texts {
		if got, want := maskCommand(text, false), maskCommand(text, true); got != want {
			t.Errorf("Command(%q) = %q with the needs, %q by every rule", text, got, want)
		}
		for _, argv := range [][]string{strings.Fields(text), {"sh", "-c", text}, {"tool", "--password", text}, {text}} {
			if got, want := maskArgv(argv, false), maskArgv(argv, true); !reflect.DeepEqual(got, want) {
				t.Errorf("Argv(%q) = %q with the needs, %q by every rule", argv, got, want)
			}
		}
	}
}

// FuzzNeeds: as TestNeedsMaskAsEveryRule, for any text.
func FuzzNeeds(f *testing.F) {
	for _, s := range []string{"PASSWORD=x", "paſsword=x", "X-API-\u212aEY: x", "https://u:p@h", "mysql -px", "a=b", "--token t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := maskCommand(s, false), maskCommand(s, true); got != want {
			t.Fatalf("Command(%q) = %q with the needs, %q by every rule", s, got, want)
		}
		argv := strings.Fields(s)
		if got, want := maskArgv(argv, false), maskArgv(argv, true); !reflect.DeepEqual(got, want) {
			t.Fatalf("Argv(%q) = %q with the needs, %q by every rule", argv, got, want)
		}
	})
}

// testStrings is every string literal of this package's test files.
func testStrings(t *testing.T) []string {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					out = append(out, s)
				}
			}
			return true
		})
	}
	return out
}

// TestShellC: shellC takes the words ^-[a-z]*c[a-z]*$ takes, no others.
func TestShellC(t *testing.T) {
	re := regexp.MustCompile(`^-[a-z]*c[a-z]*$`)
	for _, w := range []string{"-c", "-ec", "-lc", "-cx", "-eux", "-", "c", "--c", "-C", "-c1", "-éc", "", "-xc-"} {
		t.Run(w, func(t *testing.T) {
			if got, want := shellC(w), re.MatchString(w); got != want {
				t.Errorf("shellC(%q) = %v, want %v", w, got, want)
			}
		})
	}
}
