// Stands in for the npm package `undici`, which the suite imports only to see interim (1xx)
// responses and which npm's registry cannot provide here. Node 20's built-in fetch runs on its own
// copy of undici, whose dispatcher reports a 1xx through the older handler call onHeaders; this
// Agent hands those to the suite's interceptor in the newer shape (onResponseStart) it expects.
const globalDispatcher = Symbol.for('undici.globalDispatcher.1')

export class Agent {
  compose (interceptor) {
    return {
      dispatch (options, handler) {
        const builtIn = globalThis[globalDispatcher]
        if (!builtIn) throw new Error('undici shim: Node has no fetch dispatcher yet')
        const send = (opts, collecting) => builtIn.dispatch(opts, new Proxy(handler, {
          get (target, property) {
            if (property === 'onHeaders') {
              return (status, rawHeaders, resume, statusText) => {
                if (status < 200) {
                  const headers = {}
                  for (let i = 0; i < rawHeaders.length; i += 2) {
                    headers[String(rawHeaders[i]).toLowerCase()] = String(rawHeaders[i + 1])
                  }
                  collecting.onResponseStart(null, status, headers, statusText)
                }
                return target.onHeaders(status, rawHeaders, resume, statusText)
              }
            }
            const value = target[property]
            return typeof value === 'function' ? value.bind(target) : value
          }
        }))
        return interceptor(send)(options, handler)
      }
    }
  }
}
