package record

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/text"
)

// MaxTitleRunes bounds titles and issue sources, in characters: the unit a JSON Schema's maxLength
// counts, so a client that validates against the published schema predicts every refusal.
const MaxTitleRunes = 200

// A title (and an issue's source) follows one rule wherever it comes from: the CLI, MCP, the
// published schemas, and a record file read or linted. As typed (Title, Source): 1 to 200
// characters, no hidden character anywhere (text.Hidden: control, bidirectional-control and
// zero-width characters, tab and line feed included), and at least one character that is not white
// space; what is kept is trimmed. As stored (a record's front matter): the same, already trimmed.
// The schemas carry the same rule as a pattern built from the same character classes, so what the
// schema accepts the type accepts, and the reverse.

// titleFault is what breaks the title rule.
type titleFault int

const (
	titleOK     titleFault = iota
	titleEmpty             // nothing but white space
	titleLong              // over MaxTitleRunes characters
	titleHidden            // invalid UTF-8, or a hidden character
	titleEdges             // stored with leading or trailing white space
)

// checkTitleText applies the rule to v, as typed or as stored, and says what is wrong: the count of
// characters for titleLong, what v holds for titleHidden.
func checkTitleText(v string, stored bool) (titleFault, string) {
	if p := text.LineProblem(v); p != "" {
		return titleHidden, p
	}
	trimmed := strings.TrimSpace(v)
	switch n := utf8.RuneCountInString(v); {
	case trimmed == "":
		return titleEmpty, ""
	case stored && trimmed != v:
		return titleEdges, ""
	case n > MaxTitleRunes:
		return titleLong, fmt.Sprintf("%d characters", n)
	}
	return titleOK, ""
}

// titleRule is the rule as the schema generator writes it. typed allows white space around the
// text (it is trimmed); stored does not.
func titleRule(description string, stored bool) contract.Rule {
	h, s := text.HiddenClass(), text.SpaceClass()
	pattern := "^[^" + h + "]*[^" + h + s + "][^" + h + "]*$"
	if stored {
		pattern = "^[^" + h + s + "](?:[^" + h + "]*[^" + h + s + "])?$"
	}
	return contract.Rule{Description: description, MinLength: 1, MaxLength: MaxTitleRunes, Pattern: pattern}
}

// StoredTitle is a title or an issue's source as a record file holds it: the published front
// matter schemas describe those members with it.
type StoredTitle string

func (StoredTitle) SchemaRule() contract.Rule {
	return titleRule("one line of plain text, 1 to 200 characters, with no control, bidirectional-control or zero-width character and no white space at either end", true)
}

// TitleOf is a title made from free text (an issue's capture): its first line that holds anything a
// title can, hidden characters turned into spaces, trimmed, and cut to MaxTitleRunes characters. It
// is "" when no line holds anything.
func TitleOf(free string) string {
	for line := range strings.Lines(strings.ToValidUTF8(free, " ")) {
		line = strings.TrimSpace(strings.Map(func(r rune) rune {
			if text.Hidden(r) != "" {
				return ' '
			}
			return r
		}, line))
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > MaxTitleRunes {
			line = strings.TrimSpace(string([]rune(line)[:MaxTitleRunes]))
		}
		return line
	}
	return ""
}
