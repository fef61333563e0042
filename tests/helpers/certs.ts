// Test certificates made with the openssl CLI at test time: a CA, a leaf for 127.0.0.1 signed by it,
// and a self-signed leaf for 127.0.0.1. Written to a fresh temp folder; `remove()` deletes it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCerts {
  /** The CA's certificate (PEM): what a webhook's `caCert` holds. */
  caCert: string;
  /** A leaf for IP 127.0.0.1 signed by the CA. */
  leaf: { key: string; cert: string };
  /** A self-signed leaf for IP 127.0.0.1. */
  selfSigned: { key: string; cert: string };
  remove(): void;
}

const OPENSSL = fs.existsSync('/usr/bin/openssl') ? '/usr/bin/openssl' : 'openssl';
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export function makeTestCerts(): TestCerts {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-certs-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync(OPENSSL, args, { cwd: dir, stdio: 'pipe' });

  openssl('req', '-x509', ...EC, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '2', '-subj', '/CN=Sluice Test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...EC, '-keyout', file('leaf.key'), '-out', file('leaf.csr'), '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(file('leaf.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', file('leaf.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-out', file('leaf.crt'), '-days', '2', '-extfile', file('leaf.ext'));
  openssl('req', '-x509', ...EC, '-keyout', file('self.key'), '-out', file('self.crt'), '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1');

  const read = (name: string) => fs.readFileSync(file(name), 'utf8');
  return {
    caCert: read('ca.crt'),
    leaf: { key: read('leaf.key'), cert: read('leaf.crt') },
    selfSigned: { key: read('self.key'), cert: read('self.crt') },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
