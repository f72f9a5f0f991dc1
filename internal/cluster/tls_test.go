package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeCerts writes a CA and one certificate for 127.0.0.1 signed by it
// (client and server use), as PEM files in dir; it returns their paths.
// With other, the certificate is signed by a second CA instead.
func writeCerts(t *testing.T, dir string, other bool) (cert, key, ca string) {
	t.Helper()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mkCA := func(name string) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
		k := newKey()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, IsCA: true,
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := x509.ParseCertificate(der)
		return c, k, der
	}
	caCert, caKey, caDER := mkCA("test ca")
	ca = write("ca.pem", "CERTIFICATE", caDER)
	if other {
		caCert, caKey, _ = mkCA("another ca")
	}
	k := newKey()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "node"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return write("node.pem", "CERTIFICATE", der), write("node.key", "EC PRIVATE KEY", kder), ca
}

// cluster.tls secures the routes: nodes with certificates of the CA
// they name form a cluster; a node whose certificate another CA signed
// is not let in (it never sees a quorum).
func TestRoutesUseTLS(t *testing.T) {
	cfgs := testConfigs(t, 3, 3)
	dir := t.TempDir()
	cert, key, ca := writeCerts(t, dir, false)
	for i := range cfgs[:2] {
		cfgs[i].TLS = TLSConfig{CertFile: cert, KeyFile: key, CAFile: ca}
	}
	strange := t.TempDir()
	scert, skey, _ := writeCerts(t, strange, true)
	cfgs[2].TLS = TLSConfig{CertFile: scert, KeyFile: skey, CAFile: ca}
	cfgs[0].Replicas, cfgs[1].Replicas, cfgs[2].Replicas = 1, 1, 1
	nodes := launchNodes(t, cfgs) // the third never joins: no quorum wait for it
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if up := upNodes(nodes[0].Status(ctx)); up == "n1 n2" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the nodes with the CA's certificates did not meet: %+v", nodes[0].Status(ctx))
		}
	}
	time.Sleep(2 * time.Second) // time enough for the third to be let in, were it
	if up := upNodes(nodes[0].Status(ctx)); up != "n1 n2" {
		t.Fatalf("a node with another CA's certificate joined: up %q", up)
	}
}
