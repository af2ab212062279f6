package main

// Sealing to a recipient: a control plane seals its scheduled etcd snapshots for the cluster's
// state key without holding it. It holds only a public X25519 key derived from the state key;
// each object gets an ephemeral key pair, and the data key comes from their shared secret. The
// chunk layout is the state store's (src/orchestrator/state-store/envelope.ts): AES-256-GCM per
// chunk, a nonce of a random prefix, the chunk's number and a flag on the last one, the header
// authenticated with every chunk, so a chunk dropped, moved or cut off fails to open.
//
//	"KCP1" | header length (u16) | header JSON | nonce prefix (7) | chunk ... (ciphertext + tag 16)

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
)

const (
	magic       = "KCP1"
	prefixBytes = 7
	chunkBytes  = 1024 * 1024
	dataKeyInfo = "kcluster-recipient object v1"
)

type header struct {
	V     int    `json:"v"`
	Alg   string `json:"alg"`
	Kid   string `json:"kid"`
	Epk   string `json:"epk"`
	Path  string `json:"path"`
	Chunk int    `json:"chunk"`
}

// recipient is who can open what this program seals: the public key and the fingerprint of
// the state key it was derived from (named in the header, so a wrong key is refused by name).
type recipient struct {
	public *ecdh.PublicKey
	kid    string
}

func parseRecipient(publicBase64, kid string) (recipient, error) {
	raw, err := base64.StdEncoding.DecodeString(publicBase64)
	if err != nil {
		return recipient{}, fmt.Errorf("recipient key: %w", err)
	}
	public, err := ecdh.X25519().NewPublicKey(raw)
	if err != nil {
		return recipient{}, fmt.Errorf("recipient key: %w", err)
	}
	return recipient{public: public, kid: kid}, nil
}

func nonceOf(prefix []byte, index uint32, last bool) []byte {
	nonce := make([]byte, 12)
	copy(nonce, prefix)
	binary.BigEndian.PutUint32(nonce[prefixBytes:], index)
	if last {
		nonce[11] = 1
	}
	return nonce
}

// dataKey binds the key to the nonce prefix and both public keys, so no two objects share one.
func dataKey(shared, prefix, ephemeral, recipientPublic []byte) ([]byte, error) {
	salt := append(append(append([]byte{}, prefix...), ephemeral...), recipientPublic...)
	return hkdf.Key(sha256.New, shared, salt, dataKeyInfo, 32)
}

// seal writes `size` bytes of `in` to `out` sealed for `to` as the state's `path`.
func seal(to recipient, path string, in io.Reader, size int64, out io.Writer) error {
	ephemeral, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	shared, err := ephemeral.ECDH(to.public)
	if err != nil {
		return err
	}
	prefix := make([]byte, prefixBytes)
	if _, err := rand.Read(prefix); err != nil {
		return err
	}
	epk := ephemeral.PublicKey().Bytes()
	key, err := dataKey(shared, prefix, epk, to.public.Bytes())
	if err != nil {
		return err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return err
	}
	h, err := json.Marshal(header{V: 1, Alg: "X25519-A256GCM-STREAM", Kid: to.kid, Epk: base64.StdEncoding.EncodeToString(epk), Path: path, Chunk: chunkBytes})
	if err != nil {
		return err
	}
	aad := make([]byte, 0, len(magic)+2+len(h))
	aad = append(aad, magic...)
	aad = binary.BigEndian.AppendUint16(aad, uint16(len(h)))
	aad = append(aad, h...)
	if _, err := out.Write(aad); err != nil {
		return err
	}
	if _, err := out.Write(prefix); err != nil {
		return err
	}
	count := (size + chunkBytes - 1) / chunkBytes
	if count == 0 {
		count = 1
	}
	buffer := make([]byte, chunkBytes)
	for i := int64(0); i < count; i++ {
		want := int64(chunkBytes)
		if rest := size - i*chunkBytes; rest < want {
			want = rest
		}
		if _, err := io.ReadFull(in, buffer[:want]); err != nil {
			return fmt.Errorf("reading chunk %d: %w", i+1, err)
		}
		sealed := gcm.Seal(nil, nonceOf(prefix, uint32(i), i == count-1), buffer[:want], aad)
		if _, err := out.Write(sealed); err != nil {
			return err
		}
	}
	return nil
}
