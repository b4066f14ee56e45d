/**
 * A PDF of numbered objects (object 1 the catalog) with a classic cross-reference table, written
 * byte by byte: the e2e tests need files pdf-lib would not write (bombs, odd filter chains,
 * streams named many times), and exact offsets keep them readable by every reader under test.
 * `offsets` replaces the cross-reference offsets of the objects it names (object number → byte
 * offset): a damaged table, whose entries point where no such object starts.
 */
export function rawPdf(objects: (string | Buffer)[], offsets: Record<number, number> = {}): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const at: number[] = [];
  let end = parts[0]!.length;
  objects.forEach((body, i) => {
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n', 'latin1')]);
    at.push(offsets[i + 1] ?? end);
    parts.push(chunk);
    end += chunk.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${at.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${end}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/**
 * The same as rawPdf, saved as most writers save today: the objects numbered in `packed` (no
 * streams) in one uncompressed object stream (object number objects.length + 1), and a
 * cross-reference stream. Damage: `entries` replaces the cross-reference entries of the objects it
 * names (object number → [object stream number, index]), `headerOffsets` the offsets that the
 * object stream's header gives them (object number → offset from /First), `headerOrder` the order
 * the header lists them in (the body keeps `packed`'s order), `headerExtra` text after the header's
 * pairs, `n` the stream's /N.
 */
export function objectStreamPdf(
  objects: string[],
  packed: number[],
  damage: { entries?: Record<number, [number, number]>; headerOffsets?: Record<number, number>; headerOrder?: number[]; headerExtra?: string; n?: number } = {},
): Buffer {
  const objStm = objects.length + 1;
  const xrefNum = objects.length + 2;
  let body = '';
  const at = new Map<number, number>();
  for (const num of packed) {
    at.set(num, body.length);
    body += `${objects[num - 1]}\n`;
  }
  let header = '';
  for (const num of damage.headerOrder ?? packed) header += `${num} ${damage.headerOffsets?.[num] ?? at.get(num)} `;
  header += damage.headerExtra ?? '';
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets = new Map<number, number>();
  let end = parts[0]!.length;
  const put = (num: number, text: string | Buffer): void => {
    const chunk = Buffer.concat([Buffer.from(`${num} 0 obj\n`, 'latin1'), typeof text === 'string' ? Buffer.from(text, 'latin1') : text, Buffer.from('\nendobj\n', 'latin1')]);
    offsets.set(num, end);
    parts.push(chunk);
    end += chunk.length;
  };
  objects.forEach((o, i) => {
    if (!packed.includes(i + 1)) put(i + 1, o);
  });
  const data = `${header}${body}`;
  put(objStm, `<< /Type /ObjStm /N ${damage.n ?? packed.length} /First ${header.length} /Length ${data.length} >>\nstream\n${data}\nendstream`);
  const xrefAt = end;
  // Rows of [type, offset or object stream (4 bytes), generation or index (2 bytes)], unfiltered.
  const rows: Buffer[] = [];
  const row = (type: number, field: number, last: number): void => {
    const r = Buffer.alloc(7);
    r.writeUInt8(type, 0);
    r.writeUInt32BE(field, 1);
    r.writeUInt16BE(last, 5);
    rows.push(r);
  };
  row(0, 0, 0xffff);
  for (let num = 1; num <= objects.length; num++) {
    const slot = packed.indexOf(num);
    const entry = damage.entries?.[num];
    if (entry) row(2, entry[0], entry[1]);
    else if (slot >= 0) row(2, objStm, slot);
    else row(1, offsets.get(num)!, 0);
  }
  row(1, offsets.get(objStm)!, 0);
  row(1, xrefAt, 0);
  const table = Buffer.concat(rows);
  put(xrefNum, Buffer.concat([
    Buffer.from(`<< /Type /XRef /Size ${xrefNum + 1} /W [1 4 2] /Root 1 0 R /Length ${table.length} >>\nstream\n`, 'latin1'),
    table,
    Buffer.from('\nendstream', 'latin1'),
  ]));
  parts.push(Buffer.from(`startxref\n${xrefAt}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}
