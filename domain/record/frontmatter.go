// Package record holds the development record's families: intents, specs, issues and decisions.
//
// A record is a markdown file: a front matter block between --- lines (flat key: value lines, the
// keys fixed per family), then "## Heading" sections. The package is pure: callers hand in bytes they
// have read (bounded by MaxFileBytes, or HeaderReadBytes for a listing), times and random numbers.
// Every parser refuses with a *ParseError that names the line and the remedy.
package record

// Ids are a family prefix and sixteen digits: the UTC time to the second (yymmddhhmmss) and four
// random digits, so two processes or two branches never need a central counter (see NewID).

// IntentFrontMatter is an intent file's front matter.
type IntentFrontMatter struct {
	ID        string `json:"id" jsonschema:"pattern=^itd-[0-9]{16}$"`
	Type      string `json:"type"`
	Title     string `json:"title"`
	Lifecycle string `json:"lifecycle"`
	Kind      string `json:"kind"`
	Severity  string `json:"severity"`
	Created   string `json:"created" jsonschema:"format=date"`
}

// SpecFrontMatter is a spec file's front matter; Implements names its intent.
type SpecFrontMatter struct {
	ID         string `json:"id" jsonschema:"pattern=^spc-[0-9]{16}$"`
	Type       string `json:"type"`
	Title      string `json:"title"`
	Lifecycle  string `json:"lifecycle"`
	Implements string `json:"implements" jsonschema:"pattern=^itd-[0-9]{16}$"`
	Created    string `json:"created" jsonschema:"format=date"`
}

// IssueFrontMatter is an issue file's front matter: something noticed, by whom, about what.
type IssueFrontMatter struct {
	ID        string   `json:"id" jsonschema:"pattern=^iss-[0-9]{16}$"`
	Type      string   `json:"type"`
	Title     string   `json:"title"`
	Lifecycle string   `json:"lifecycle"`
	Severity  string   `json:"severity"`
	Source    string   `json:"source"`
	Related   []string `json:"related" jsonschema:"uniqueItems=true"`
	Created   string   `json:"created" jsonschema:"format=date"`
}

// DecisionFrontMatter is a decision file's front matter: a ruling, its date and what it supersedes.
type DecisionFrontMatter struct {
	ID         string   `json:"id" jsonschema:"pattern=^dcn-[0-9]{16}$"`
	Type       string   `json:"type"`
	Title      string   `json:"title"`
	Date       string   `json:"date" jsonschema:"format=date"`
	Supersedes []string `json:"supersedes" jsonschema:"uniqueItems=true"`
}
