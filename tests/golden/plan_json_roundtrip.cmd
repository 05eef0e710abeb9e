cd "$TMPDIR_GOLD" && for s in accpar 3d pase; do case $s in accpar) m=vgg11 c=2xtpu-v2+2xtpu-v3 b=256 ;; 3d) m=gpt2 c=1xdgx-a100 b=16 ;; pase) m=alexnet c=8xa100 b=1024 ;; esac; dnnpar plan $m --search $s --cluster $c --batch $b --json $s.json 2>/dev/null | grep -E "^(predicted|simulated) step time" | cut -c1-60; dnnpar simulate --strategy $s.json | grep "^predicted step time" | cut -c1-60; dnnpar simulate --strategy $s.json --json $s.sim.json > /dev/null; done; python3 -c "
import json
keys = None
for s in ('accpar', '3d', 'pase'):
    p, q = json.load(open(s + '.json')), json.load(open(s + '.sim.json'))
    head = list(p)[:list(p).index('strategy') + 1]
    if keys is None:
        keys = head
        print(' '.join(keys))
    print(s, 'version', p['version'], 'kind', p['strategy']['kind'], 'same summary' if head == keys else head,
          'step_time_s equal' if p['step_time_s'] == q['step_time_s'] else 'step_time_s DIFFERENT')"
