#!/bin/sh
# Certificates for the TLS tests, made fresh in DIR with openssl:
#   ca.pem            a private CA (what the tests give mailto-route as ca-file)
#   server.pem/-key   for 127.0.0.1 and localhost, signed by the CA, valid for two days
#   expired.pem/-key  the same names and CA, but valid only in January 2020
set -eu
cd "$1"
ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
san="subjectAltName=IP:127.0.0.1,DNS:localhost"
openssl req -x509 $ec -keyout ca-key.pem -out ca.pem -days 2 -subj "/CN=mailto-route test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -new $ec -keyout server-key.pem -out server.csr -subj /CN=localhost -addext "$san" 2>/dev/null
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 2 -copy_extensions copy \
  -out server.pem 2>/dev/null
openssl req -new $ec -keyout expired-key.pem -out expired.csr -subj /CN=localhost -addext "$san" 2>/dev/null
cat > ca.cnf <<CNF
[ca]
default_ca = test
[test]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = anything
copy_extensions = copy
unique_subject = no
[anything]
commonName = supplied
CNF
: > index.txt
echo 01 > serial
openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca-key.pem -in expired.csr -out expired.pem \
  -startdate 20200101000000Z -enddate 20200102000000Z -notext 2>/dev/null
