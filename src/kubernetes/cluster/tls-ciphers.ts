// The TLS cipher suites the API server, the kubelet and etcd accept for TLS 1.2 (TLS 1.3 suites
// are not configurable in Go and are all strong): ECDHE key exchange with AES-GCM or
// ChaCha20-Poly1305 only, the list the CIS Kubernetes Benchmark accepts for both the API server
// (1.2.29) and the kubelet (4.2.12). Every client kcluster installs speaks them.
export const TLS_CIPHER_SUITES = [
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
] as const;
