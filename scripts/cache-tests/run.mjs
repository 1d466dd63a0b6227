// Runs the suite's client against BASE (the relay) and prints the score: scored tests (required
// and optional, dependencies honoured as cache-tests.fyi does) passed, then every scored test that
// did not pass with the suite's message. "check" tests (informational, unscored) are listed apart.
//
//   node run.mjs SUITE_DIR BASE_URL RESULTS_JSON [TEST_ID]
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const [suite, base, resultsFile, onlyId] = process.argv.slice(2)
const load = async file => import(pathToFileURL(path.join(suite, file)).href)
const tests = (await load('tests/index.mjs')).default
const { runTests, getResults } = await load('test-engine/client/runner.mjs')
const { determineTestResult, resultTypes } = await load('test-engine/lib/results.mjs')

let toRun = tests
if (onlyId) {
  toRun = tests.map(group => ({ ...group, tests: group.tests.filter(test => test.id === onlyId) }))
    .filter(group => group.tests.length > 0)
  if (toRun.length === 0) throw new Error(`no test ${onlyId}`)
  toRun[0].tests[0].dump = true
}
await runTests(toRun, false, base)
const results = getResults()
fs.writeFileSync(resultsFile, JSON.stringify(results, null, 2))

const tally = { required: [0, 0], optimal: [0, 0] }
const failing = []
const checks = []
for (const group of toRun) {
  for (const test of group.tests) {
    if (test.browser_only) continue
    const kind = test.kind || 'required'
    // One test alone: its dependencies did not run, so they are not held against it (as the suite's cli does).
    const outcome = determineTestResult(tests, test.id, results, !onlyId)
    const detail = results[test.id] === true ? '' : (results[test.id] || ['untested'])[1] || ''
    if (kind === 'check') {
      checks.push(`${outcome === resultTypes.yes ? 'yes' : 'no '} ${test.id}${detail ? ' — ' + detail : ''}`)
      continue
    }
    tally[kind][1] += 1
    if (outcome === resultTypes.pass) {
      tally[kind][0] += 1
    } else {
      const why = outcome === resultTypes.dependency_fail ? `depends on ${test.depends_on.join(', ')}` : detail
      failing.push(`${kind === 'required' ? 'required' : 'optional'} ${test.id}: ${why}`)
    }
  }
}
const passed = tally.required[0] + tally.optimal[0]
const scored = tally.required[1] + tally.optimal[1]
console.log(`score: ${passed}/${scored} (required ${tally.required[0]}/${tally.required[1]}, optional ${tally.optimal[0]}/${tally.optimal[1]})`)
console.log(`failing (${failing.length}):`)
for (const line of failing) console.log(`  ${line}`)
console.log(`checks (unscored, ${checks.length}):`)
for (const line of checks) console.log(`  ${line}`)
