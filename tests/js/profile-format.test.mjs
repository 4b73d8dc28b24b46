// Metric number formats (`format:` of METRICS.yaml, `fmt=` of experiment.xml) as hpcviewer shows
// them: Java's String.format. The expected strings are what Java 17 prints for the same format
// and value (half-up rounding of the shortest decimal digits). Run: node --test tests/js/
import test from 'node:test';
import assert from 'node:assert/strict';
import { formatPrintf } from '../../www/views/profile-format.js';

/** Each [format, value, the string Java prints]. */
function check(rows) {
  for (const [format, value, want] of rows) assert.equal(formatPrintf(format, value), want, `${format} of ${value}`);
}

test('%f: width, precision, flags and a literal percent sign', () => {
  check([
    ['%6.2f %%', 3.14159, '  3.14 %'],
    ['%6.0f', 2.5, '     3'],
    ['%6.0f', 123456789, '123456789'],
    ['%f', 1, '1.000000'],
    ['%.0f', 0.4, '0'],
    ['%.3f', 0.0004, '0.000'],
    ['%.3f', 0.0005, '0.001'],
    ['%.2f', 99.999, '100.00'],
    ['%,.2f', 1234567.891, '1,234,567.89'],
    ['%+.1f', 2, '+2.0'],
    ['% .1f', 2, ' 2.0'],
    ['%(.1f', -2, '(2.0)'],
    ['%08.2f', -3.14159, '-0003.14'],
    ['%-8.2f|', 3.14159, '3.14    |'],
    ['%.1f', -0.0, '-0.0'],
    ['%.2f', 1e21, '1000000000000000000000.00'],
  ]);
});

test('%f rounds half-up on the shortest digits, as Java does (not as toFixed does)', () => {
  assert.equal((1.005).toFixed(2), '1.00');
  check([
    ['%.2f', 1.005, '1.01'],
    ['%.1f', 0.15, '0.2'],
    ['%.1f', 0.25, '0.3'],
    ['%.2f', 0.125, '0.13'],
  ]);
});

test('%e and %E: two-digit signed exponent, carry into the exponent', () => {
  check([
    ['%e', 12345.678, '1.234568e+04'],
    ['%.3e', 12345.678, '1.235e+04'],
    ['%E', 0.000123, '1.230000E-04'],
    ['%.2e', 9.9999, '1.00e+01'],
    ['%.0e', 15, '2e+01'],
    ['%e', 0, '0.000000e+00'],
    ['%e', 1e100, '1.000000e+100'],
    ['%.1e', -2.5e-300, '-2.5e-300'],
    ['%12.3e|', 1234, '   1.234e+03|'],
  ]);
});

test('NaN and infinities as Java writes them; unsupported formats give null', () => {
  check([
    ['%6.2f', NaN, '   NaN'],
    ['%.2f', Infinity, 'Infinity'],
    ['%08.1f', -Infinity, '-Infinity'],
  ]);
  for (const f of ['%d', '%s', '%g', '%x', '%.2f %.2f', '100%', '%#.2f', null, undefined]) {
    assert.equal(formatPrintf(f, 1.5), null, String(f));
  }
  assert.equal(formatPrintf('no conversion', 1.5), 'no conversion');
});
