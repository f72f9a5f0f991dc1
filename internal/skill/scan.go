package skill

import (
	"regexp"
	"strconv"
	"strings"
)

// rule is one pattern of the security scan.
type rule struct {
	re   *regexp.Regexp
	what string
}

// shellRE matches a shell interpreter at the end of a pipe.
const shellRE = `\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:/usr)?(?:/bin/)?(?:ba|z|da|k|fi)?sh\b`

// rules are the patterns Scan flags. They look for instructions that
// would hand the machine to someone else, not for every risky command.
var rules = []rule{
	{regexp.MustCompile(`\b(?:curl|wget|fetch)\b[^\n|]*` + shellRE), "downloads a script and pipes it into a shell"},
	{regexp.MustCompile(`\bbase64\s+(?:-\w*d\w*|--decode)\b[^\n]*` + shellRE), "decodes base64 and pipes it into a shell"},
	{regexp.MustCompile(`\beval\s+["']?(?:\$\(|` + "`" + `)\s*(?:curl|wget)\b`), "evaluates code downloaded from the network"},
	{regexp.MustCompile(`\b(?:ba|z)?sh\s+(?:-c\s+)?["']?(?:<\(|\$\()\s*(?:curl|wget)\b`), "runs a downloaded script in a shell"},
	{regexp.MustCompile(`\brm\s+(?:-[a-zA-Z]+\s+)*-(?:[a-zA-Z]*[rR][a-zA-Z]*[fF]|[a-zA-Z]*[fF][a-zA-Z]*[rR])[a-zA-Z]*\s+(?:--no-preserve-root\s+)?["']?(?:/|/\*|~/?|\$HOME/?|\$\{HOME\}/?)["']?(?:\s|$|;|&|\|)`), "deletes the root or home directory (rm -rf /)"},
	{regexp.MustCompile(`(?:>>?|\btee\b[^\n]*?|\b(?:cp|mv|install|ln)\b[^\n]*?)\s*["']?(?:~|\$HOME|\$\{HOME\}|/root|/home/[^/\s]+)/\.ssh\b`), "writes into ~/.ssh"},
	{regexp.MustCompile(`/dev/(?:tcp|udp)/`), "opens a raw network socket from the shell (reverse shell)"},
	{regexp.MustCompile(`\b(?:nc|ncat|netcat)\b[^\n]*\s-(?:e|c)\s`), "runs netcat with a shell attached (reverse shell)"},
	{regexp.MustCompile(`\bchmod\s+(?:-\w+\s+)*(?:[ugoa]*\+[rwxXt]*s|[0-7]?[2-7][0-7]{3}\b)`), "sets the setuid or setgid bit (chmod +s)"},
}

// Scan checks a SKILL.md's text for dangerous instructions: a download
// piped into a shell, base64 decoded into a shell, eval of downloaded
// code, rm -rf of / or ~, writes into ~/.ssh, reverse shells and setuid
// bits. Each finding reads "line N: what"; nil means clean.
func Scan(content string) []string {
	var flags []string
	for i, line := range strings.Split(content, "\n") {
		for _, r := range rules {
			if r.re.MatchString(line) {
				flags = append(flags, "line "+strconv.Itoa(i+1)+": "+r.what)
			}
		}
	}
	return flags
}
