import { describe, expect, it } from 'vitest';
import { forbiddenAddressRule, isForbiddenAddress } from '../../../src/sources/address-guard.js';

/** Canonical host of a URL as the WHATWG parser leaves it (what the guard is given for literals). */
const hostOf = (url: string): string => new URL(url).hostname.replace(/^\[|\]$/g, '');

describe('address guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique local'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::7f00:1', 'IPv4-compatible embedding a loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped embedding a loopback'],
    ['::ffff:0:7f00:1', 'IPv4-translated embedding a loopback'],
    ['2002:7f00:1::', '6to4 embedding a loopback'],
    ['2002:a9fe:a9fe::1', '6to4 embedding a link-local'],
    ['64:ff9b::7f00:1', 'NAT64 embedding a loopback'],
    ['64:ff9b::a00:1', 'NAT64 embedding a private'],
    ['64:ff9b:1::1', 'NAT64'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:db8::1', 'reserved'],
  ])('refuses %s (%s)', (address, rule) => {
    expect(forbiddenAddressRule(address)).toContain(rule);
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:808:808::1', '64:ff9b::808:808'])('allows public %s', (address) => {
    expect(forbiddenAddressRule(address)).toBeUndefined();
  });

  it.each([
    ['http://2130706433/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://0x7f.0.0.1/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://[::7f00:1]/', 'loopback'],
    ['http://[::ffff:0:7f00:1]/', 'loopback'],
    ['http://[2002:7f00:1::]/', 'loopback'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', 'loopback'],
  ])('numeric URL form %s is refused as %s', (url, rule) => {
    expect(forbiddenAddressRule(hostOf(url))).toContain(rule);
  });

  it('refuses what is not a canonical address rather than guess', () => {
    expect(forbiddenAddressRule('2130706433')).toBe('not an IP address');
    expect(forbiddenAddressRule('127.1')).toBe('not an IP address');
    expect(forbiddenAddressRule('localhost')).toBe('not an IP address');
  });
});
