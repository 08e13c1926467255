package diagram

import "errors"

// errPanels: a page or SVG draws one run, or two compared.
var errPanels = errors.New("diagram: want one run, or two to compare")
