// The PSK exchange URI: roost-psk://v1?addr=<Algorand address>&psk=<base64url 32 bytes>&label=<text>&network=<testnet|mainnet>
// Whoever holds it can talk to the address, encrypting with the key. Shown as text and as a QR code.
import QRCode from 'qrcode';

export interface PskUri {
  addr: string;
  psk: Buffer;
  label: string;
  network: 'testnet' | 'mainnet';
}

const SCHEME = 'roost-psk:';

export function formatPskUri(uri: PskUri): string {
  const query = new URLSearchParams({ addr: uri.addr, psk: uri.psk.toString('base64url'), label: uri.label, network: uri.network });
  return `roost-psk://v1?${query.toString()}`;
}

export function parsePskUri(text: string): PskUri {
  const url = new URL(text);
  if (url.protocol !== SCHEME || url.host !== 'v1') throw new Error('not a roost-psk://v1 URI');
  const q = url.searchParams;
  const psk = Buffer.from(q.get('psk') ?? '', 'base64url');
  const network = q.get('network');
  if (psk.length !== 32) throw new Error('the psk must be 32 bytes, base64url');
  if (network !== 'testnet' && network !== 'mainnet') throw new Error('the network must be testnet or mainnet');
  return { addr: q.get('addr') ?? '', psk, label: q.get('label') ?? '', network };
}

/** The URI as a QR code, in both forms the UI and a phone need. */
export async function qrImages(uri: string): Promise<{ svg: string; png: string }> {
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  const png = await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 320 });
  return { svg, png };
}
