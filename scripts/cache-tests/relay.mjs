// Maps the suite's requests onto Larder: /test/... becomes GET|HEAD|... /fetch?url=<origin>/test/...
// on Larder; the suite's bookkeeping (/config, /state) goes straight to the origin. Method, header
// fields (names as sent, repeated ones kept) and body pass through both ways; interim 102 and 103
// responses are relayed too. Only hop-by-hop fields are dropped, since each leg frames its own message.
//
//   node relay.mjs ORIGIN_PORT LARDER_PORT      prints "relay listening on 127.0.0.1:PORT"
import http from 'node:http'

const [originPort, larderPort] = process.argv.slice(2).map(Number)
const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer'])

function passable (rawHeaders, dropHost) {
  const out = []
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase()
    if (hopByHop.has(name) || (dropHost && name === 'host')) continue
    out.push(rawHeaders[i], rawHeaders[i + 1])
  }
  return out
}

// Node's writeEarlyHints looks for the lower-case `link` and silently sends nothing without it.
function headerObject (rawHeaders) {
  const object = {}
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase()
    object[name] = name in object ? [].concat(object[name], rawHeaders[i + 1]) : rawHeaders[i + 1]
  }
  return object
}

const server = http.createServer((request, response) => {
  const throughLarder = request.url.startsWith('/test/')
  const port = throughLarder ? larderPort : originPort
  const path = throughLarder
    ? '/fetch?url=' + encodeURIComponent(`http://127.0.0.1:${originPort}${request.url}`)
    : request.url
  const headers = passable(request.rawHeaders, true)
  headers.push('Host', `127.0.0.1:${port}`)
  const upstream = http.request({ host: '127.0.0.1', port, method: request.method, path, headers, agent: false })
  upstream.on('information', info => {
    if (info.statusCode === 103) response.writeEarlyHints(headerObject(info.rawHeaders))
    else if (info.statusCode === 102) response.writeProcessing()
  })
  upstream.on('response', answer => {
    response.writeHead(answer.statusCode, answer.statusMessage, passable(answer.rawHeaders, false))
    answer.pipe(response)
  })
  upstream.on('error', error => {
    if (response.headersSent) {
      response.destroy()
    } else {
      response.writeHead(502, { 'Content-Type': 'text/plain' })
      response.end(`relay: ${error.message}\n`)
    }
  })
  request.pipe(upstream)
})
server.listen(0, '127.0.0.1', () => {
  console.log(`relay listening on 127.0.0.1:${server.address().port}`)
})
