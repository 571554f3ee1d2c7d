/**
 * A self-signed certificate for `public.test`, made once with openssl for the HTTPS fetch tests. The key is
 * a throwaway that protects nothing; it is trusted only by the test that passes the certificate as `ca`.
 */
export const testCertificate = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUDeMQmT6FAQNJcb6pBDjA6P31gbAwCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLcHVibGljLnRlc3QwIBcNMjYxMTIxMTU0NDM1WhgPMjEyNjEw
MjgxNTQ0MzVaMBYxFDASBgNVBAMMC3B1YmxpYy50ZXN0MFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEqRoaD1qLE+zpblTQyNfD4VnsIhm8TANfJp2FYbc03gmtb80W
F+kWGB5Df7vHf4zqtocC4LObUdY/d9RvxVu44aNrMGkwHQYDVR0OBBYEFCOs+LwL
5cZQpqJ4Gngx72Afhx3uMB8GA1UdIwQYMBaAFCOs+LwL5cZQpqJ4Gngx72Afhx3u
MA8GA1UdEwEB/wQFMAMBAf8wFgYDVR0RBA8wDYILcHVibGljLnRlc3QwCgYIKoZI
zj0EAwIDSAAwRQIhAIbAqmqHR56S9E1YiXoCWeDUCaEykWlUiBIKcvof7K4MAiBF
APt293np7RI3EygiEyPC6jKCHmo7kaYulNaFf/5ZKw==
-----END CERTIFICATE-----
`

export const testCertificateKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgOrnuams73/bhy9Sv
7OrhlMC9DzuQGwCYa0Ajt87tK8mhRANCAASpGhoPWosT7OluVNDI18PhWewiGbxM
A18mnYVhtzTeCa1vzRYX6RYYHkN/u8d/jOq2hwLgs5tR1j931G/FW7jh
-----END PRIVATE KEY-----
`
