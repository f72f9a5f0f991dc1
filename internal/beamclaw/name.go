package beamclaw

// NameRule says in words what IsName accepts, for error messages.
const NameRule = "1-64 lower-case letters, digits, '-' or '_', starting with a letter or digit"

// IsName reports whether s can name an agent or a skill (NameRule): it is
// a safe path component, the same in every package that stores one.
func IsName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		lowerOrDigit := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !lowerOrDigit && (i == 0 || c != '-' && c != '_') {
			return false
		}
	}
	return true
}
