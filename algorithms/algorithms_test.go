package algorithms

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"
)

func TestNew(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").Internal(0.1, "P0").Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, variant, want string
	}{
		{"ms", "", "ms"},
		{"ms", "textbook", "ms-textbook"},
		{"pk", "", "pk"},
		{"bcs", "", "bcs"},
		{"fdas", "", "fdas"},
		{"hmnr", "", "hmnr"},
		{"coordinated", "", "coordinated"},
	} {
		a, err := New(c.name, c.variant, tr)
		if err != nil {
			t.Errorf("New(%q, %q): %v", c.name, c.variant, err)
			continue
		}
		if a.Name() != c.want {
			t.Errorf("New(%q, %q).Name() = %q, want %q", c.name, c.variant, a.Name(), c.want)
		}
	}
	// The test-only mutants are not variants: package mutants has them.
	for _, c := range []struct{ name, variant, want string }{
		{"ms", "nope", `ms: unknown variant "nope" (want textbook)`},
		{"ms", "no-forced", `ms: unknown variant "no-forced" (want textbook)`},
		{"ms", "no-log", "unknown variant"},
		{"ms", "replay-all", "unknown variant"},
		{"pk", "no-token", `pk: unknown variant "no-token" (pk has none)`},
		{"pk", "textbook", "unknown variant"},
		{"xx", "", `unknown algorithm "xx" (want ms, pk, bcs, fdas, hmnr or coordinated)`},
		{"bcs", "textbook", `bcs: unknown variant "textbook" (bcs has none)`},
		{"", "", "unknown algorithm"},
	} {
		_, err := New(c.name, c.variant, tr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q, %q) = %v, want an error with %q", c.name, c.variant, err, c.want)
		}
	}
}

// TestTable: every entry is complete, names are unique, and every
// variant the table lists is one its constructor accepts, and no other.
func TestTable(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0").Internal(0.1, "P0").Build()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := range All {
		a := &All[i]
		if a.Name == "" || a.Doc == "" || a.New == nil || seen[a.Name] || a.Name == "both" {
			t.Errorf("entry %d (%q): incomplete or duplicate", i, a.Name)
		}
		seen[a.Name] = true
		for _, v := range append([]Variant{{Name: ""}}, a.Variants...) {
			if v.Name != "" && v.Doc == "" {
				t.Errorf("%s/%s: no description", a.Name, v.Name)
			}
			if _, err := a.New(v.Name, tr); err != nil {
				t.Errorf("%s/%s listed but rejected: %v", a.Name, v.Name, err)
			}
		}
		if _, err := a.New("surely-not-a-variant", tr); err == nil {
			t.Errorf("%s accepts any variant", a.Name)
		}
	}
	if got := strings.Join(AllNames, " "); got != "ms pk bcs fdas hmnr coordinated" {
		t.Errorf("AllNames = %q", got)
	}
	if got := strings.Join(Names, " "); got != "ms pk" {
		t.Errorf("Names = %q (the recovery algorithms: what --algo both means)", got)
	}
	if got := strings.Join(VariantNames(), " "); got != "textbook" {
		t.Errorf("VariantNames = %q", got)
	}
	if got := strings.Join(VariantsOf("textbook"), " "); got != "ms" {
		t.Errorf("VariantsOf(textbook) = %q", got)
	}
	if got := VariantsOf(""); len(got) != 0 {
		t.Errorf("VariantsOf(\"\") = %q", got)
	}
}

func TestChoice(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""}, {[]string{"ms"}, "ms"}, {[]string{"ms", "pk"}, "ms or pk"}, {[]string{"ms", "pk", "both"}, "ms, pk or both"},
	} {
		if got := Choice(c.in); got != c.want {
			t.Errorf("Choice(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestCheckVariant: one rule for every command — a variant that none
// of the selected algorithms has is refused; with both, it applies to
// the ones that have it.
func TestCheckVariant(t *testing.T) {
	for _, tc := range []struct {
		variant, algo, want string
	}{
		{"", "pk", ""},
		{"textbook", "ms", ""},
		{"textbook", "both", ""},
		{"textbook", "pk", "--variant textbook: pk has no textbook variant (it applies to --algo ms)"},
		{"textbook", "bcs", "--variant textbook: bcs has no textbook variant (it applies to --algo ms)"},
		{"no-forced", "ms", `--variant "no-forced": want textbook`},
	} {
		err := CheckVariant(tc.variant, Select(tc.algo))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckVariant(%q, %s) = %q, want %q", tc.variant, tc.algo, got, tc.want)
		}
	}
	if VariantFor("pk", "textbook") != "" || VariantFor("ms", "textbook") != "textbook" {
		t.Error("VariantFor does not apply a variant only where the algorithm has it")
	}
}
