package backend

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// bytesMarker starts a stored string that stands for bytes: the rest is
// their base64. U+FFFF is a noncharacter, never in a real argument.
const bytesMarker = "\uFFFFb64:"

// EncodeText is s as a text column or a JSON string can hold it, byte for
// byte: arguments, directories, host names and commands are bytes, not
// text. A valid UTF-8 string without NUL is itself; any other (and one that
// starts with the marker) is the marker and its bytes in base64.
func EncodeText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) && !strings.HasPrefix(s, bytesMarker) {
		return s
	}
	return bytesMarker + base64.StdEncoding.EncodeToString([]byte(s))
}

// DecodeText reads back what EncodeText stored.
func DecodeText(s string) string {
	rest, ok := strings.CutPrefix(s, bytesMarker)
	if !ok {
		return s
	}
	b, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return s
	}
	return string(b)
}
