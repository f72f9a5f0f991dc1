// Package scrubtest holds credential-shaped fixtures for the tests of
// every package that must refuse, scrub or move secrets. Only tests
// import it.
package scrubtest

import "strings"

// FakeSecrets returns credential-shaped fixtures by kind, assembled at run time so that no scanner
// mistakes this file for one holding real keys.
func FakeSecrets() map[string]string {
	r := func(s string, n int) string { return strings.Repeat(s, n) }
	return map[string]string{
		"openai":       "sk-" + r("aB3dE5fG7h", 4),
		"openai proj":  "sk-proj-" + r("Xy9_Zw8-Vu", 4),
		"anthropic":    "sk-ant-api03-" + r("Qr7St6Uv5W", 4),
		"openrouter":   "sk-or-v1-" + r("0a1b2c3d4e", 6),
		"groq":         "gsk_" + r("Lm4No5Pq6R", 4),
		"github":       "ghp_" + r("Ab1Cd2Ef3G", 4),
		"github pat":   "github_pat_" + r("11AB22cd33", 4),
		"slack bot":    "xoxb-" + r("1234-", 3) + "abcdefABCDEF",
		"slack user":   "xoxp-" + r("9876-", 3) + "zyxwvuZYXWVU",
		"aws":          "AKIA" + r("ABCD2345", 2),
		"telegram":     "123456789:" + r("AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", 1) + "x",
		"bearer":       "Bearer " + r("abc123", 6),
		"long hex":     r("0123456789abcdef", 3),
		"long base64":  r("QmFzZTY0U2VjcmV0", 3) + "==",
		"pem":          "-----BEGIN RSA PRIVATE KEY-----",
		"gitlab":       "glpat-" + r("Hj8Kl9Mn0P", 3),
		"stripe":       "sk_live_" + r("4eC39HqLyj", 3),
		"google oauth": "ya29." + r("a0AfB_byC9", 4),
		"basic auth":   "Basic " + r("dXNlcjpw", 3),
		"padded space": "  sk-" + r("aB3dE5fG7h", 4) + "  ",
	}
}

// Shapes returns credential-shaped fixtures for each shape of scrub's
// table (scrub.Shapes), by the shape's name: at least one for each of
// its literal prefixes.
func Shapes() map[string][]string {
	r := strings.Repeat
	each := func(body string, prefixes ...string) []string {
		out := make([]string, len(prefixes))
		for i, p := range prefixes {
			out[i] = p + body
		}
		return out
	}
	return map[string][]string{
		"pem_private_key": {
			"-----BEGIN " + "RSA PRIVATE KEY-----\n" + r("TUlJRXBBSUJBQUtDQVFF", 3) + "\n-----END RSA PRIVATE KEY-----",
			"-----BEGIN " + "OPENSSH PRIVATE KEY-----\n" + r("b3BlbnNzaC1rZXktdjE", 3), // truncated
		},
		"jwt": {"ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0In0." + r("dozjgNryP4J3", 3)},
		"openai_anthropic_openrouter": {
			"sk-" + r("aB3dE5fG7h", 4), "sk-proj-" + r("Xy9_Zw8-Vu", 4),
			"sk-ant-api03-" + r("Qr7St6Uv5W", 4), "sk-or-v1-" + r("0a1b2c3d4e", 6),
		},
		"groq":                {"gsk_" + r("Lm4No5Pq6R", 4)},
		"github":              each(r("Ab1Cd2Ef3G", 4)[:36], "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
		"github_fine_grained": {"github_pat_" + r("11AB22cd33", 2) + "_" + r("Zz9Yy8Xx7W", 6)},
		"slack": append(each(r("1234-", 3)+"abcdefABCDEF", "xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-"),
			"xapp-1-A0123456789-1234567890123-"+r("0a1b2c3d4e", 6)),
		"aws_key_id":   each(r("ABCD2345", 2), "AKIA", "ASIA"),
		"google":       {"AIza" + r("Sy0_x-9Zq", 4)[:35]},
		"google_oauth": {"ya29." + r("a0AfB_byC9", 4)},
		"gitlab":       {"glpat-" + r("Hj8Kl9Mn0P", 3)},
		"stripe":       each(r("4eC39HqLyj", 3), "sk_live_", "rk_live_", "sk_test_", "rk_test_"),
		"telegram_bot": {"123456789:" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawx"},
	}
}
