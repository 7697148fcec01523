/**
 * The pages' favicon (issue 25, F17): a browser asks every page's origin for /favicon.ico, and
 * a 404 there is a console error on every developer page. A 16×16 icon drawn here, a blue disc
 * with a white ring, so that no binary file is needed: ICO with one 32-bit BMP image
 * (ICONDIR, ICONDIRENTRY, BITMAPINFOHEADER, the pixels bottom-up in BGRA, an empty AND mask).
 */
export function favicon(): Buffer {
  const size = 16;
  const pixels = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const distance = Math.hypot(x + 0.5 - size / 2, y + 0.5 - size / 2);
      if (distance > 7.5) continue; // transparent
      const ring = distance > 3.5 && distance < 5;
      const offset = ((size - 1 - y) * size + x) * 4; // rows bottom-up
      pixels.set(ring ? [0xff, 0xff, 0xff, 0xff] : [0xdf, 0x6f, 0x2f, 0xff], offset); // BGRA: #2f6fdf
    }
  }
  const mask = Buffer.alloc(size * 4); // one bit a pixel, rows padded to 32 bits; alpha decides
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(size, 4);
  header.writeInt32LE(size * 2, 8); // the XOR image and the AND mask
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([header, pixels, mask]);
  const directory = Buffer.alloc(22);
  directory.writeUInt16LE(1, 2); // type: icon
  directory.writeUInt16LE(1, 4); // one image
  directory.writeUInt8(size, 6);
  directory.writeUInt8(size, 7);
  directory.writeUInt16LE(1, 10); // planes
  directory.writeUInt16LE(32, 12); // bits a pixel
  directory.writeUInt32LE(image.length, 14);
  directory.writeUInt32LE(22, 18);
  return Buffer.concat([directory, image]);
}
