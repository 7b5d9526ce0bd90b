// A program outside the vxk tree, built against an installed vxk with find_package(vxk).
#include <vxk/vxk.h>
#include <stdio.h>

int main(void)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = 2;
    vxk_jobs* jobs = NULL;
    if (vxk_jobs_create(&def, &jobs) != 0)
        return 1;
    int ok = vxk_jobs_worker_count(jobs) == 2;
    vxk_jobs_destroy(jobs);
    printf("consumer: vxk %s, %s\n", vxk_version_string(), vxk_status_string(VXK_OK));
    return ok ? 0 : 1;
}
