package history

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"strings"
)

// DERKeyRule finds a private key written as base64 with no PEM armour around it (MII…, MIG…, MC4…):
// PKCS#1 (RSA, and DSA's like it), PKCS#8 (plain and encrypted), SEC1 (EC), PKCS#12; and an OpenSSH
// private key's body (b3BlbnNzaC1rZXktdjE…). It reads the DER the base64 holds, so a public key or a
// certificate (which start alike) is not one, and the key's own length says where it ends, wrapped
// over lines or not.
const DERKeyRule = "private-key-der"

// derHead is how many base64 characters are read to know a key: its first 24 bytes.
const derHead = 32

// opensshMagic is "openssh-key-v1\x00" in base64: an OpenSSH private key's first characters.
const opensshMagic = "b3BlbnNzaC1rZXktdjE"

// derKeys are the private keys written as base64 DER in text. Line breaks and white space (real or
// escaped) inside a key are read through, so a key wrapped over lines is one finding, from its first
// character to its last.
func derKeys(text string) []Finding {
	if !strings.Contains(text, "M") && !strings.Contains(text, opensshMagic[:8]) {
		return nil
	}
	joined, at := squeeze(text)
	var out []Finding
	for i := 0; i < len(joined); i++ {
		c := joined[i]
		if c != 'M' && c != 'b' || i > 0 && isBase64Byte(joined[i-1]) && !atLineStart(text, at[i]) {
			continue
		}
		need := 0
		switch {
		case c == 'M':
			need = derKeyChars(joined[i:])
		case strings.HasPrefix(joined[i:], opensshMagic):
			need = opensshKeyChars(joined[i:])
		}
		if need == 0 {
			continue
		}
		end := keyEnd(joined, at, i, need)
		for end < len(joined) && joined[end] == '=' && end-i >= need && end-i < need+2 {
			end++
		}
		out = append(out, Finding{Rule: DERKeyRule, Start: at[i], End: at[end-1] + 1})
		i = end - 1
	}
	return out
}

// keyEnd is where a key of need base64 characters that starts at joined[i] ends: it runs on across
// line breaks (the places at says were taken out) onto each next line that is as long as a wrapped
// key's (16 characters or more) or ends the key (its length, or its padding, is reached), so a key
// cut short does not take the words after it.
func keyEnd(joined string, at []int, i, need int) int {
	k := i
	for k < len(joined) && k-i < need && isBase64Byte(joined[k]) && joined[k] != '=' {
		k++
		if k < len(joined) && at[k] != at[k-1]+1 { // a line break before joined[k]
			n := k
			for n < len(joined) && (n == k || at[n] == at[n-1]+1) && isBase64Byte(joined[n]) && joined[n] != '=' {
				n++
			}
			if n-k < 16 && n-i < need && (n == len(joined) || joined[n] != '=') {
				return k
			}
		}
	}
	return k
}

// atLineStart reports whether text[i] begins its line or follows white space: a key squeezed against
// the word before it (a label, then the key on the next line) still starts a key.
func atLineStart(text string, i int) bool {
	if i == 0 {
		return true
	}
	switch text[i-1] {
	case ' ', '\t', '\n', '\r', '"', '\'', ':', '=', '>', '`':
		return true
	case 'n', 'r', 't':
		return i >= 2 && text[i-2] == '\\'
	}
	return false
}

// base64Prefix is how many characters from the start of s are base64 (either alphabet).
func base64Prefix(s string) int {
	for i := 0; i < len(s); i++ {
		if !isBase64Byte(s[i]) || s[i] == '=' {
			return i
		}
	}
	return len(s)
}

// decodeHead decodes the first characters of a base64 run (at most max, whole quartets), in whichever
// alphabet reads them.
func decodeHead(s string, max int) []byte {
	n := min(base64Prefix(s), max)
	n -= n % 4
	if n == 0 {
		return nil
	}
	if d, err := base64.StdEncoding.DecodeString(s[:n]); err == nil {
		return d
	}
	if d, err := base64.URLEncoding.DecodeString(s[:n]); err == nil {
		return d
	}
	return nil
}

// derKeyChars is how many base64 characters a DER private key that starts s (with 'M') takes before
// its padding, 0 when s does not start one.
func derKeyChars(s string) int {
	head := decodeHead(s, derHead)
	total, body, ok := derHeader(head)
	if !ok || !privateKeyBody(head[body:]) {
		return 0
	}
	return (4*total + 2) / 3 // the key's characters before its padding

}

// derHeader reads a DER SEQUENCE's header: the whole length with the header, and where its content
// starts.
func derHeader(b []byte) (total, body int, ok bool) {
	if len(b) < 2 || b[0] != 0x30 {
		return 0, 0, false
	}
	switch l := b[1]; {
	case l < 0x80:
		return 2 + int(l), 2, true
	case l == 0x81 && len(b) >= 3 && b[2] >= 0x80:
		return 3 + int(b[2]), 3, true
	case l == 0x82 && len(b) >= 4 && b[2] != 0:
		return 4 + int(binary.BigEndian.Uint16(b[2:4])), 4, true
	case l == 0x83 && len(b) >= 5 && b[2] != 0:
		return 5 + int(b[2])<<16 + int(binary.BigEndian.Uint16(b[3:5])), 5, true
	}
	return 0, 0, false
}

// pkcs5 and pkcs12PBE are the OIDs an encrypted PKCS#8 key's algorithm starts with (1.2.840.113549.1.5
// and 1.2.840.113549.1.12).
var (
	pkcs5     = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05}
	pkcs12PBE = []byte{0x06, 0x0a, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c}
)

// privateKeyBody reports whether a SEQUENCE's first bytes are a private key's: a version (0 or 1; 3
// for PKCS#12) followed by what that structure holds next, or an encrypted key's algorithm. A public
// key (SEQUENCE, then the algorithm) and a certificate (SEQUENCE, then SEQUENCE) are not.
func privateKeyBody(b []byte) bool {
	if len(b) >= 5 && b[0] == 0x02 && b[1] == 0x01 {
		switch version, next := b[2], b[3]; {
		case version == 0 && next == 0x02: // PKCS#1 RSA (and DSA): the modulus follows
			return true
		case version <= 1 && next == 0x30: // PKCS#8: the algorithm follows
			return len(b) >= 6 && b[4] < 0x80 && b[5] == 0x06
		case version == 1 && next == 0x04: // SEC1 EC: the private key's octets follow
			return true
		case version == 3 && next == 0x30: // PKCS#12
			return true
		}
		return false
	}
	// An encrypted PKCS#8 key: SEQUENCE { SEQUENCE { OID pbes2 or a PKCS#12 PBE, ... }, OCTET STRING }.
	if _, body, ok := derHeader(b); ok && body+len(pkcs5) <= len(b) {
		rest := b[body:]
		return bytes.HasPrefix(rest, pkcs5) || bytes.HasPrefix(rest, pkcs12PBE)
	}
	return false
}

// opensshKeyChars is how many base64 characters an OpenSSH private key's body that starts s takes:
// its fields' lengths say where it ends; one cut short or unreadable past its magic takes its run.
func opensshKeyChars(s string) int {
	run := base64Prefix(s)
	if run < 48 {
		return 0
	}
	const most = 64 << 10
	d := decodeHead(s, min(run, most))
	at := len("openssh-key-v1\x00")
	if len(d) < at || string(d[:at]) != "openssh-key-v1\x00" {
		return 0
	}
	field := func() bool { // a string: a length and that many bytes
		if at+4 > len(d) {
			return false
		}
		at += 4 + int(binary.BigEndian.Uint32(d[at:]))
		return at <= len(d)
	}
	ok := true
	for range 3 { // the cipher's name, the kdf's, its options
		ok = ok && field()
	}
	ok = ok && at+4 <= len(d) // the count of keys
	if ok {
		keys := int(binary.BigEndian.Uint32(d[at:]))
		at += 4
		for k := 0; ok && k < keys && k < 16; k++ {
			ok = field() // each public key
		}
		ok = ok && field() // the private part
	}
	if !ok {
		return run // cut short, or unreadable past its magic: the whole run is the key's
	}
	return (4*at + 2) / 3
}
