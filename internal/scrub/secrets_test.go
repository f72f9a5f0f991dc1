package scrub

import "strings"

// Fake credentials are assembled at run time so that no credential-shaped
// literal sits in the source for secret scanners to trip over.

// fill returns n characters drawn from alphabet in a fixed order.
func fill(alphabet string, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteByte(alphabet[(i*7+3)%len(alphabet)])
	}
	return b.String()
}

const (
	alnumChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	urlB64     = alnumChars + "_-"
	upperChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

var (
	fakeOpenAIProj = "sk-" + "proj-" + fill(urlB64, 48)
	fakeOpenAI     = "sk-" + fill(alnumChars, 48)
	fakeAnthropic  = "sk-" + "ant-api03-" + fill(urlB64, 90)
	fakeOpenRouter = "sk-" + "or-v1-" + fill("0123456789abcdef", 64)
	fakeGroq       = "gsk" + "_" + fill(alnumChars, 52)
	fakeGitHub     = "gh" + "p_" + fill(alnumChars, 36)
	fakeGitHubOAu  = "gh" + "o_" + fill(alnumChars, 36)
	fakeGitHubPAT  = "github" + "_pat_" + fill(alnumChars, 22) + "_" + fill(alnumChars, 59)
	fakeSlackBot   = "xo" + "xb-" + "1234567890-1234567890123-" + fill(alnumChars, 24)
	fakeSlackApp   = "xa" + "pp-1-A0123456789-1234567890123-" + fill("0123456789abcdef", 64)
	fakeAWS        = "AK" + "IA" + fill(upperChars, 16)
	fakeAWSTemp    = "AS" + "IA" + fill(upperChars, 16)
	fakeGoogle     = "AI" + "za" + fill(urlB64, 35)
	fakeTelegram   = "123456789:" + "AA" + fill(urlB64, 33)
	fakeJWT        = "ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0In0." + fill(urlB64, 43)
	fakePEMBody    = fill(alnumChars+"+/", 64) + "\n" + fill(alnumChars+"+/", 64) + "\n" + fill(alnumChars, 20) + "=="
	fakePEM        = "-----BEGIN " + "RSA PRIVATE KEY-----\n" + fakePEMBody + "\n-----END RSA PRIVATE KEY-----"
)

// plant is text to insert and the secret in it that must not survive.
type plant struct{ text, secret string }

// plants cover every pattern family; the fuzz target inserts them between
// white space anywhere in its input.
var plants = []plant{
	{fakeOpenAIProj, fakeOpenAIProj}, {fakeOpenAI, fakeOpenAI}, {fakeAnthropic, fakeAnthropic},
	{fakeOpenRouter, fakeOpenRouter}, {fakeGroq, fakeGroq}, {fakeGitHub, fakeGitHub},
	{fakeGitHubOAu, fakeGitHubOAu}, {fakeGitHubPAT, fakeGitHubPAT}, {fakeSlackBot, fakeSlackBot},
	{fakeSlackApp, fakeSlackApp}, {fakeAWS, fakeAWS}, {fakeAWSTemp, fakeAWSTemp},
	{fakeGoogle, fakeGoogle}, {fakeTelegram, fakeTelegram}, {fakeJWT, fakeJWT},
	{fakePEM, fakePEMBody[:64]},
	{"https://api.telegram.org/bot" + fakeTelegram + "/getMe", fakeTelegram},
	{"postgres://admin:Zq8vRt2LmN4x@db.internal:5432/app", "Zq8vRt2LmN4x"},
	{"password=Hunter2Hunter2", "Hunter2Hunter2"},
	{"API_KEY: c0ffee-c0ffee-c0ffee", "c0ffee-c0ffee-c0ffee"},
	{"Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy"},
	{"Authorization: Bearer abc123def456ghi789", "abc123def456ghi789"},
}
