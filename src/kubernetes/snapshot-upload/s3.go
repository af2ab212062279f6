package main

// The three S3 calls the uploader makes (put, list, delete), signed with AWS Signature Version 4
// (header-based, signed payload) as the controller's own client signs them
// (src/orchestrator/state-store/s3/sigv4.ts): a control plane needs no SDK for this.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"
)

type store struct {
	endpoint     *url.URL
	bucket       string
	region       string
	pathStyle    bool
	accessKeyID  string
	secretKey    string
	sessionToken string
	client       *http.Client
	now          func() time.Time
}

const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

func uriEncode(value string, keepSlash bool) string {
	var b strings.Builder
	for _, c := range []byte(value) {
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b.WriteByte(c)
		case c == '/' && keepSlash:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// objectURL is where `key` is, path-style or virtual-hosted; the path is already in its signed form.
func (s *store) objectURL(key string, query url.Values) *url.URL {
	u := *s.endpoint
	path := strings.TrimSuffix(u.Path, "/")
	if s.pathStyle {
		path += "/" + uriEncode(s.bucket, false)
	} else {
		u.Host = s.bucket + "." + u.Host
	}
	if key != "" {
		path += "/" + uriEncode(key, true)
	} else if !s.pathStyle {
		path += "/"
	}
	u.RawPath = path
	u.Path, _ = url.PathUnescape(path)
	u.RawQuery = canonicalQuery(query)
	return &u
}

func canonicalQuery(query url.Values) string {
	type pair struct{ k, v string }
	var pairs []pair
	for k, vs := range query {
		for _, v := range vs {
			pairs = append(pairs, pair{uriEncode(k, false), uriEncode(v, false)})
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].k != pairs[j].k {
			return pairs[i].k < pairs[j].k
		}
		return pairs[i].v < pairs[j].v
	})
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = p.k + "=" + p.v
	}
	return strings.Join(parts, "&")
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// sign adds host, x-amz-date, x-amz-content-sha256, the session token and Authorization to `headers`.
func sign(method string, u *url.URL, headers map[string]string, payloadSHA256, accessKeyID, secretKey, sessionToken, region string, now time.Time) {
	date := now.UTC().Format("20060102T150405Z")
	day := date[:8]
	headers["host"] = u.Host
	headers["x-amz-date"] = date
	headers["x-amz-content-sha256"] = payloadSHA256
	if sessionToken != "" {
		headers["x-amz-security-token"] = sessionToken
	}
	names := make([]string, 0, len(headers))
	for name := range headers {
		names = append(names, name)
	}
	sort.Strings(names)
	var canonicalHeaders strings.Builder
	for _, name := range names {
		canonicalHeaders.WriteString(name + ":" + strings.Join(strings.Fields(headers[name]), " ") + "\n")
	}
	signedHeaders := strings.Join(names, ";")
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	canonicalRequest := strings.Join([]string{method, path, u.RawQuery, canonicalHeaders.String(), signedHeaders, payloadSHA256}, "\n")
	scope := day + "/" + region + "/s3/aws4_request"
	digest := sha256.Sum256([]byte(canonicalRequest))
	stringToSign := strings.Join([]string{"AWS4-HMAC-SHA256", date, scope, hex.EncodeToString(digest[:])}, "\n")
	key := hmacSHA256(hmacSHA256(hmacSHA256(hmacSHA256([]byte("AWS4"+secretKey), day), region), "s3"), "aws4_request")
	signature := hex.EncodeToString(hmacSHA256(key, stringToSign))
	headers["authorization"] = "AWS4-HMAC-SHA256 Credential=" + accessKeyID + "/" + scope + ", SignedHeaders=" + signedHeaders + ", Signature=" + signature
}

func (s *store) do(method, key string, query url.Values, body io.Reader, size int64, payloadSHA256 string) (*http.Response, error) {
	u := s.objectURL(key, query)
	headers := map[string]string{}
	if body != nil {
		headers["content-length"] = fmt.Sprint(size)
	}
	sign(method, u, headers, payloadSHA256, s.accessKeyID, s.secretKey, s.sessionToken, s.region, s.now())
	request, err := http.NewRequest(method, u.String(), body)
	if err != nil {
		return nil, err
	}
	for name, value := range headers {
		if name != "host" && name != "content-length" {
			request.Header.Set(name, value)
		}
	}
	request.ContentLength = size
	return s.client.Do(request)
}

// failure reads S3's error answer into one line.
func failure(what string, response *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(response.Body, 4096))
	var answer struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	if xml.Unmarshal(body, &answer) == nil && answer.Code != "" {
		return fmt.Errorf("%s: %s %s (HTTP %d)", what, answer.Code, answer.Message, response.StatusCode)
	}
	return fmt.Errorf("%s: HTTP %d", what, response.StatusCode)
}

// putFile uploads `file` (its hex sha256 given) as `key`.
func (s *store) putFile(key, file, sha256Hex string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	return answered("put " + key)(s.do(http.MethodPut, key, nil, f, info.Size(), sha256Hex))
}

// answered turns a request's outcome into an error, S3's own when it answered with one.
func answered(what string) func(*http.Response, error) error {
	return func(response *http.Response, err error) error {
		if err != nil {
			return err
		}
		defer response.Body.Close()
		if response.StatusCode/100 != 2 {
			return failure(what, response)
		}
		return nil
	}
}

type listedObject struct {
	Key          string    `xml:"Key"`
	LastModified time.Time `xml:"LastModified"`
	Size         int64     `xml:"Size"`
}

// list returns every object under `prefix`, page by page.
func (s *store) list(prefix string) ([]listedObject, error) {
	var out []listedObject
	token := ""
	for {
		query := url.Values{"list-type": {"2"}, "prefix": {prefix}}
		if token != "" {
			query.Set("continuation-token", token)
		}
		response, err := s.do(http.MethodGet, "", query, nil, 0, emptySHA256)
		if err != nil {
			return nil, err
		}
		if response.StatusCode/100 != 2 {
			err := failure("list "+prefix, response)
			response.Body.Close()
			return nil, err
		}
		var page struct {
			Contents              []listedObject `xml:"Contents"`
			IsTruncated           bool           `xml:"IsTruncated"`
			NextContinuationToken string         `xml:"NextContinuationToken"`
		}
		err = xml.NewDecoder(response.Body).Decode(&page)
		response.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", prefix, err)
		}
		out = append(out, page.Contents...)
		if !page.IsTruncated {
			return out, nil
		}
		if page.NextContinuationToken == "" {
			return nil, fmt.Errorf("list %s: the answer is cut short and gives no continuation token", prefix)
		}
		token = page.NextContinuationToken
	}
}

func (s *store) delete(key string) error {
	return answered("delete " + key)(s.do(http.MethodDelete, key, nil, nil, 0, emptySHA256))
}
