package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// The values abcd ahoy connect and disconnect take. Each checks itself when decoded, with the rule of
// the configuration key it becomes (config.CheckValue), and describes itself to the schemas.

// Name is a provider's name.
type Name string

// UnmarshalText refuses a name that is malformed or reserved (provider_name_invalid).
func (n *Name) UnmarshalText(b []byte) error {
	if !ValidName(string(b)) {
		return refusal.New(refusal.CodeProviderNameInvalid, "", fmt.Sprintf("%q is not a provider's name", text.Clip(string(b))),
			"use 1 to 32 of a-z, 0-9, _ and -, starting with a letter or digit; "+strings.Join(Reserved(), ", ")+" are taken")
	}
	*n = Name(b)
	return nil
}

func (Name) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the provider's name (not " + strings.Join(Reserved(), ", ") + ")", MinLength: 1, MaxLength: 32, Pattern: NamePattern}
}

// BaseURL is a provider's base URL, with its version path: https, or http to a loopback address;
// no credentials, query or fragment. A refusal never quotes it.
type BaseURL string

// UnmarshalText refuses an address the configuration would refuse (base_url_invalid).
func (u *BaseURL) UnmarshalText(b []byte) error {
	data, _ := json.Marshal(string(b))
	err := config.CheckValue("oracle.api.p.base_url", data)
	if err == nil && !strings.HasPrefix(string(b), "https://") && !strings.HasPrefix(string(b), "http://") {
		err = errors.New("must start with https:// or http://, in lowercase")
	}
	if err != nil {
		return refusal.New(refusal.CodeBaseURLInvalid, "", "the base URL "+err.Error(),
			"give the provider's address with its version path, such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1")
	}
	*u = BaseURL(b)
	return nil
}

func (BaseURL) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the provider's base URL with its version path: https, or http to a loopback address, the scheme in lowercase", MinLength: 1, MaxLength: 2048, Pattern: "^https?://"}
}

// Model is a model id.
type Model string

// UnmarshalText refuses a malformed model id (model_invalid).
func (m *Model) UnmarshalText(b []byte) error {
	if !config.ValidModelID(string(b)) {
		return refusal.New(refusal.CodeModelInvalid, "", fmt.Sprintf("%q is not a model id", text.Clip(string(b))),
			"give the model as the provider names it: letters, digits and . _ : / @ + -, at most 200 bytes")
	}
	*m = Model(b)
	return nil
}

func (Model) SchemaRule() contract.Rule {
	return contract.Rule{Description: "a model id as the provider names it", MinLength: 1, MaxLength: config.MaxModelIDBytes, Pattern: `^[A-Za-z0-9@][A-Za-z0-9._:/@+-]*$`}
}

// TierModel is tier=model: which model serves a tier.
type TierModel string

// Split returns the tier and the model.
func (t TierModel) Split() (oracle.Tier, string) {
	tier, model, _ := strings.Cut(string(t), "=")
	return oracle.Tier(tier), model
}

// UnmarshalText refuses anything but local, economy or frontier, then = and a model id
// (tier_model_invalid).
func (t *TierModel) UnmarshalText(b []byte) error {
	tier, model, ok := strings.Cut(string(b), "=")
	served := false
	for _, s := range ServedTiers() {
		served = served || string(s) == tier
	}
	if !ok || !served || !config.ValidModelID(model) {
		return refusal.New(refusal.CodeTierModelInvalid, "", fmt.Sprintf("%q is not tier=model", text.Clip(string(b))),
			"write local=ID, economy=ID or frontier=ID, with the model as the provider names it")
	}
	*t = TierModel(b)
	return nil
}

func (TierModel) SchemaRule() contract.Rule {
	return contract.Rule{Description: "tier=model: local, economy or frontier, then the model serving it", MinLength: 7, MaxLength: 9 + config.MaxModelIDBytes,
		Pattern: `^(local|economy|frontier)=[A-Za-z0-9@][A-Za-z0-9._:/@+-]*$`}
}

// KeyEnv is the name of the environment variable that holds a provider's key.
type KeyEnv string

// UnmarshalText refuses anything but an environment variable's name (key_env_invalid); a value that
// looks like a key is refused without being echoed.
func (k *KeyEnv) UnmarshalText(b []byte) error {
	data, _ := json.Marshal(string(b))
	if err := config.CheckValue("oracle.api.p.key_env", data); err != nil {
		return refusal.New(refusal.CodeKeyEnvInvalid, "", "is not an environment variable's name; abcd never takes the key itself",
			"export the key in a variable (export OPENAI_API_KEY=...) and give its name, such as OPENAI_API_KEY")
	}
	*k = KeyEnv(b)
	return nil
}

func (KeyEnv) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the environment variable that holds the key (its name, never the key)", MinLength: 1, MaxLength: 128, Pattern: `^[A-Z_][A-Z0-9_]*$`}
}

// KeyFile is an absolute path to a file holding a provider's key.
type KeyFile string

// UnmarshalText refuses a path that is not absolute and clean (key_file_invalid).
func (k *KeyFile) UnmarshalText(b []byte) error {
	data, _ := json.Marshal(string(b))
	if err := config.CheckValue("oracle.api.p.key_file", data); err != nil {
		return refusal.New(refusal.CodeKeyFileInvalid, "", "the key file "+err.Error(), "give the file's absolute path; the file must be yours and mode 0600")
	}
	*k = KeyFile(b)
	return nil
}

func (KeyFile) SchemaRule() contract.Rule {
	return contract.Rule{Description: "an absolute path to a file holding the key: yours, mode 0600", MinLength: 1, MaxLength: 4096, Pattern: "^/"}
}

// PriceEntry is one entry of a provider's or a runner's price table, as ahoy connect --price takes
// it: "MODEL INPUT OUTPUT [CACHE_READ CACHE_WRITE]", US dollars per million tokens.
type PriceEntry string

// UnmarshalText refuses anything config.ParsePrice refuses (config_value_invalid), naming the form.
func (p *PriceEntry) UnmarshalText(b []byte) error {
	if _, err := config.ParsePrice(string(b)); err != nil {
		return refusal.New(refusal.CodeConfigValueInvalid, "", fmt.Sprintf("the price %q %s", text.Clip(string(b)), err.Error()),
			`give --price "MODEL INPUT OUTPUT", such as --price "gpt-5 1.25 10", once per model`)
	}
	*p = PriceEntry(b)
	return nil
}

func (PriceEntry) SchemaRule() contract.Rule {
	return contract.Rule{Description: `one model's price: "MODEL INPUT OUTPUT [CACHE_READ CACHE_WRITE]", US dollars per million tokens (0 to 1000 each)`,
		MinLength: 5, MaxLength: config.MaxModelIDBytes + 4*32}
}

// BillingMode is how a connected provider's or runner's steps are paid for: metered or subscription.
type BillingMode string

// UnmarshalText refuses anything but metered and subscription (config_value_invalid).
func (m *BillingMode) UnmarshalText(b []byte) error {
	if !slices.Contains(config.Billings(), string(b)) {
		return refusal.New(refusal.CodeConfigValueInvalid, "", fmt.Sprintf("%q is not a billing", text.Clip(string(b))),
			"give metered (the default: a step costs what its tokens cost at --price) or subscription (a flat fee: every step's cost is unmetered)")
	}
	*m = BillingMode(b)
	return nil
}

func (BillingMode) SchemaRule() contract.Rule {
	r := contract.Enum(config.Billings()...)
	r.Description = "metered (the default): a step costs what the route reports, else its tokens at the prices; subscription: a flat fee, so every step's cost is unmetered"
	return r
}
