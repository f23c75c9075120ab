package record

// Family is one of the record's four kinds of file.
type Family string

const (
	Intents   Family = "intents"
	Specs     Family = "specs"
	Issues    Family = "issues"
	Decisions Family = "decisions"
)

// Folder is one lifecycle folder of a family, relative to the repository root. The folder is the
// lifecycle: moving a record between lifecycles is a rename.
type Folder struct {
	Family    Family
	Lifecycle string // "" for a family with no lifecycle folders (decisions)
	Dir       string
	Prefix    string // every file in the folder is <prefix>-<id>-<slug>.md
}

// KeepFile is the empty file every record folder holds, committed, so no folder ever empties. Git's
// merge takes a folder whose every file one branch moved into another folder as renamed, and puts a
// record the other branch added there into the folder it moved to: closing the last open issue on
// one branch would close a new issue of the other's. A folder that never empties is never renamed.
const KeepFile = ".gitkeep"

// Folders lists every record folder in a fixed order: families, then lifecycles in their order.
func Folders() []Folder {
	return []Folder{
		{Intents, "drafts", ".abcd/development/intents/drafts", "itd"},
		{Intents, "planned", ".abcd/development/intents/planned", "itd"},
		{Intents, "shipped", ".abcd/development/intents/shipped", "itd"},
		{Specs, "open", ".abcd/development/specs/open", "spc"},
		{Specs, "closed", ".abcd/development/specs/closed", "spc"},
		{Issues, "open", ".abcd/work/issues/open", "iss"},
		{Issues, "closed", ".abcd/work/issues/closed", "iss"},
		{Decisions, "", ".abcd/development/decisions", "dcn"},
	}
}
