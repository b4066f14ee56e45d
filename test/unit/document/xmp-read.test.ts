/**
 * XMP (xmp.ts, issue 28): read in one streaming pass after the XML budget; a packet that is
 * malformed, declares a DOCTYPE or nests past the limit is not read, and says why.
 */
import { describe, expect, it } from 'vitest';
import { readXmp } from '../../../src/engine/document/xmp.js';

const RDF = (inner: string) =>
  `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">${inner}</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;

describe('readXmp', () => {
  it('reads the attribute form and the element form, dc:creator from its list, and counts history events', () => {
    const xml = RDF(
      `<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreateDate="2023-05-04T13:31:05-07:00" xmp:CreatorTool="Word &amp; Co"/>` +
        `<rdf:Description rdf:about=""><xmp:ModifyDate>2023-05-05</xmp:ModifyDate><pdf:Producer> Acrobat <b>Distiller</b> </pdf:Producer>` +
        `<dc:creator><rdf:Seq><rdf:li>Alice</rdf:li><rdf:li>Bob</rdf:li></rdf:Seq></dc:creator>` +
        `<xmpMM:History><rdf:Seq><rdf:li stEvt:action="created"/><rdf:li><stEvt:action>saved</stEvt:action></rdf:li></rdf:Seq></xmpMM:History></rdf:Description>`,
    );
    const r = readXmp(xml);
    expect(r).toEqual({
      fields: {
        createDate: '2023-05-04T13:31:05-07:00',
        modifyDate: '2023-05-05',
        metadataDate: null,
        creatorTool: 'Word & Co',
        producer: 'Acrobat Distiller',
        creator: 'Alice',
        documentId: null,
        historyEvents: 2,
      },
    });
  });

  it('does not read a packet that is malformed, declares a DOCTYPE or nests past 256', () => {
    expect(readXmp(RDF('<rdf:Description><xmp:CreateDate>2023</rdf:Description>'))).toMatchObject({ problem: expect.stringMatching(/not well-formed XML/) });
    expect(readXmp(`<!DOCTYPE x [<!ENTITY a "b">]>${RDF('')}`)).toMatchObject({ problem: expect.stringMatching(/declares a DOCTYPE/) });
    expect(readXmp(RDF(`${'<a>'.repeat(20_000)}${'</a>'.repeat(20_000)}`))).toMatchObject({ problem: expect.stringMatching(/more than 256 deep/) });
  });

  it('many unclosed-looking property tags are read in one pass (the regular expressions were quadratic)', () => {
    const many = RDF(`<rdf:Description>${'<xmp:CreateDate />'.repeat(50_000)}</rdf:Description>`);
    expect(readXmp(many)).toMatchObject({ fields: { createDate: null } });
  });
});
