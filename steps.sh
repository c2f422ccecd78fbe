# Answers are scored from their evidence (situation, own actions, fitting techniques, a result,
# trade-offs; docs/decisions.md): a short strong answer lands in the strong band (>= 70) ...
curl -s $IV/api/v1/sessions/$SID/messages -H "X-Session-Token: $TOKEN" -H 'content-type: application/json' \
  -d '{"content":"At my last company the ledger service timed out every month-end. I profiled it and found lock contention in the ledger, replaced the mutex with per-account actors, latency fell 60 % while throughput doubled."}' \
  | jq -e '.score | .composite_score >= 70 and (.summary | startswith("Strong answer"))'
# ... and a longer, vague one in the weak band (<= 40)
curl -s $IV/api/v1/sessions/$SID/messages -H "X-Session-Token: $TOKEN" -H 'content-type: application/json' \
  -d '{"content":"I am a very passionate engineer and I always try to follow best practices. I believe code quality is very important and I think testing is important too. I have worked with a lot of different technologies over the years and I generally like to keep things clean and simple."}' \
  | jq -e '.score | .composite_score <= 40 and (.summary | startswith("Weak answer"))'
